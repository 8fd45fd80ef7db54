import { asNode, attr, list, text, type Node } from './ota-xml.ts';
import { checkOutOf, SourceFailure, type RateSearch } from './rate-source.ts';

/**
 * What one request asked: the search, the hotel code it named and the EchoToken it carried. An
 * answer is stored and served only when it is the answer to this question.
 */
export type Question = RateSearch & { hotelCode: string; echoToken: string };

const mismatch = (what: string) => new SourceFailure('InvalidResult', `the answer is not for the search asked: ${what}`);

/**
 * The EchoToken first: OpenTravel requires a response to carry the request's token unchanged, and
 * ours is new for every request, so an answer to another request (a proxy's or cache's mix-up, a
 * late answer on a reused connection) is refused before anything in it is read, errors included:
 * a "no availability" for another stay must not be stored as this one's.
 */
export function checkEchoToken(root: Node, question: Question): void {
  const echoed = attr(root, 'EchoToken');
  if (echoed === question.echoToken) return;
  const errors = list(asNode(root.Errors)?.Error).map((error) =>
    `${attr(error, 'Code') ?? '?'} ${attr(error, 'ShortText') ?? text(error) ?? ''}`.trim(),
  );
  const said = errors.length > 0 ? ` (it says: ${errors.join('; ').slice(0, 300)})` : '';
  throw mismatch(
    echoed === undefined
      ? `it carries no EchoToken, the request's was ${question.echoToken}${said}`
      : `its EchoToken "${echoed.slice(0, 130)}" is not the request's ${question.echoToken}${said}`,
  );
}

/** Nights in an ISO 8601 / OpenTravel duration of whole days or nights (`P3D`, `P3N`, `P1W`). */
function nightsOf(duration: string): number | undefined {
  const match = /^P(?:(\d+)W)?(?:(\d+)[DN])?$/i.exec(duration.trim());
  if (!match || (match[1] === undefined && match[2] === undefined)) return undefined;
  return Number(match[1] ?? 0) * 7 + Number(match[2] ?? 0);
}

/**
 * Each RoomStay's hotel, stay and guests, where the answer states them, must be the ones asked:
 * BasicPropertyInfo@HotelCode, TimeSpan (Start/End, or Start/Duration) and GuestCounts (adults are
 * AgeQualifyingCode 10 or no code; the request asks for adults only).
 */
export function checkRoomStayBelongs(roomStay: Node, question: Question): void {
  const hotelCode = attr(asNode(roomStay.BasicPropertyInfo), 'HotelCode');
  if (hotelCode !== undefined && hotelCode !== question.hotelCode)
    throw mismatch(`HotelCode ${hotelCode.slice(0, 64)}, asked ${question.hotelCode}`);
  const span = asNode(roomStay.TimeSpan);
  if (span) {
    const start = attr(span, 'Start');
    const end = attr(span, 'End');
    const duration = attr(span, 'Duration');
    if (start !== undefined && start.slice(0, 10) !== question.checkIn)
      throw mismatch(`TimeSpan starts ${start.slice(0, 32)}, asked ${question.checkIn}`);
    if (end !== undefined && end.slice(0, 10) !== checkOutOf(question))
      throw mismatch(`TimeSpan ends ${end.slice(0, 32)}, asked ${checkOutOf(question)}`);
    if (duration !== undefined) {
      const nights = nightsOf(duration);
      if (nights === undefined)
        throw new SourceFailure('InvalidResult', `TimeSpan Duration "${duration.slice(0, 32)}" is not a number of days`);
      if (nights !== question.nights) throw mismatch(`TimeSpan lasts ${nights} nights, asked ${question.nights}`);
    }
  }
  const counts = list(asNode(roomStay.GuestCounts)?.GuestCount);
  if (counts.length > 0) {
    let adults = 0;
    let others = 0;
    for (const count of counts) {
      const value = Number(attr(count, 'Count') ?? 'NaN');
      if (!Number.isInteger(value) || value < 0) throw new SourceFailure('InvalidResult', 'a GuestCount has no whole Count');
      const age = attr(count, 'AgeQualifyingCode');
      if (age === undefined || age === '10') adults += value;
      else others += value;
    }
    if (adults !== question.guests || others > 0) {
      throw mismatch(`GuestCounts are ${adults} adults${others > 0 ? ` and ${others} others` : ''}, asked ${question.guests} adults`);
    }
  }
}

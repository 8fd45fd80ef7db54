// Longer than 400 lines: one workload drives every kind of work through the cluster and keeps each
// unit's record (accepted, completed, copies, verdict) in one map the report reads; split by kind, each
// part would need that map and the label's bookkeeping back.
import { sendSmtp } from '@quarry/testing';
import { authorization, bookingHotelId, mailRecipient, type FaultCluster } from './fault-cluster.ts';
import { judgeApplication, judgeBooking, type Verdict } from './verdicts.ts';

export type Kind = 'job-post' | 'batch-row' | 'mail' | 'push' | 'application' | 'booking';

/**
 * One piece of work Quarry accepted (a 200, a 201, a 250), and what became of it. Applications and
 * bookings also carry whether their final status ended unknown, and whether it is untruthful
 * (it disagrees with what the site or the hotel received).
 */
export type Unit = {
  kind: Kind;
  key: string;
  acceptedAt: number;
  completedAt?: number;
  copies: number;
  failed?: string;
  unknown?: boolean;
  /** Seen ended unknown once, then replaced by the definite answer of a run that lived on. */
  unknownReplaced?: boolean;
  untruthful?: string;
};

/** One HTTP answer of the API during the run (`ms` is null when no answer came: the process died). */
type ApiCall = { startedAt: number; ms: number | null; status: number | null; path: string; method: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const API_TIMEOUT_MS = 30_000;
/** An application to one of the careers sites every this often (each site in turn). */
const APPLY_EVERY_MS = 3_000;
/** A booking started every this often; each is driven by its client through every input. */
const BOOK_EVERY_MS = 3_000;
const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/**
 * Real work through every role, as clients send it: job posts and a batch through the API,
 * messages through SMTP, push subscriptions changed through the API (each change is a state the
 * receiver must get). Every unit is keyed by the scenario's label, so scenarios sharing one
 * cluster never count each other's work.
 */
export function createWorkload(cluster: FaultCluster, label: string) {
  const units = new Map<string, Unit>();
  const calls: ApiCall[] = [];
  const smtpFailures: string[] = [];
  let running = false;
  const loops: Array<Promise<void>> = [];
  const batchIds: string[] = [];
  let rotation = 0;
  const regressionsBefore = cluster.pushSink.regressions;
  /** Candidate email → application id; booking id → the booking's driver. */
  const applicationIds = new Map<string, string>();
  const bookingDrivers: Array<Promise<void>> = [];
  /** While set, clients hold every booking input (a booking waits for its client) until it resolves. */
  let inputsHeld: Promise<void> | null = null;
  let parkedAtInput = 0;
  /** Booking drivers give up (their booking counts as stuck) after this. */
  let driveUntil = Number.POSITIVE_INFINITY;

  const accept = (kind: Kind, key: string) => units.set(`${kind}:${key}`, { kind, key, acceptedAt: Date.now(), copies: 0 });

  /** Sends to one API process, then to the other when the first gave no answer (it was killed). */
  async function api(
    method: string,
    path: string,
    client: { clientId: string; secret: string },
    body: string | undefined,
    contentType = 'application/json',
  ) {
    const apis = cluster.roles.api;
    for (let tries = 0; tries < 4; tries += 1) {
      const target = apis[(rotation += 1) % apis.length]!;
      const port = target.port();
      if (!target.alive() || port === 0) continue;
      const startedAt = Date.now();
      try {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: authorization(client), ...(body === undefined ? {} : { 'content-type': contentType }) },
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(API_TIMEOUT_MS),
        });
        const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
        calls.push({ startedAt, ms: Date.now() - startedAt, status: response.status, path, method });
        return { status: response.status, json, retryAfterS: Number(response.headers.get('retry-after') ?? 0) };
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError';
        calls.push({ startedAt, ms: timedOut ? API_TIMEOUT_MS : null, status: null, path, method });
        if (timedOut) return { status: 0, json: {}, retryAfterS: 0 };
      }
    }
    return { status: 0, json: {}, retryAfterS: 0 };
  }

  async function jobPosts() {
    for (let index = 1; running; index += 1) {
      const jobPostId = `${label}-p${index}`;
      const answer = await api(
        'POST',
        '/v1/recruitment/job-posts/mine/',
        cluster.recruiter,
        JSON.stringify({ jobPostId, url: `${cluster.web.origin}/jobs/${index}`, employer: 'Acme', jobTitle: 'Engineer' }),
      );
      if (answer.status === 200) accept('job-post', jobPostId);
      await sleep(500);
    }
  }

  /** A batch of `rows`; every other row's page takes 1.5 s, so rows are mid-work at any moment. */
  async function batch(tag: string, rows: number) {
    const ids = Array.from({ length: rows }, (_, index) => `${label}-${tag}${index + 1}`);
    const csv = [
      'jobPostId,url,employer,jobTitle',
      ...ids.map((id, index) => `${id},${cluster.web.origin}/${index % 2 === 0 ? `slow/${index}?ms=1500` : `jobs/${index}`},Acme,Engineer`),
    ].join('\r\n');
    const answer = await api('POST', '/v1/recruitment/job-posts/batch/mine/', cluster.recruiter, csv, 'text/csv');
    if (answer.status !== 200) return answer.status;
    batchIds.push(String(answer.json.batchId));
    for (const id of ids) accept('batch-row', id);
    return 200;
  }

  async function mail() {
    for (let index = 1; running; index += 1) {
      const ports = cluster.roles.mail.filter((role) => role.alive() && role.smtpPort() > 0).map((role) => role.smtpPort());
      const port = ports[index % Math.max(1, ports.length)];
      if (port !== undefined) {
        const messageId = `${label}-m${index}@sender.test`;
        const raw = `From: Bob <bob@sender.test>\r\nTo: ${mailRecipient}\r\nSubject: ${label} ${index}\r\nMessage-ID: <${messageId}>\r\n\r\nHello.\r\n`;
        try {
          const sent = await Promise.race([
            sendSmtp(port, { from: 'bob@sender.test', to: [mailRecipient], raw }),
            sleep(API_TIMEOUT_MS).then(() => null),
          ]);
          if (sent?.data?.code === 250) accept('mail', messageId);
          else smtpFailures.push(sent ? `${sent.data?.code ?? sent.rcpt[0]?.code}` : 'timeout');
        } catch (error) {
          smtpFailures.push((error as Error).message);
        }
      }
      await sleep(400);
    }
  }

  /**
   * Applications to the careers sites' slow form, each site in turn (politeness allows one at a
   * time per host), each by a new candidate; the post is mined by the first application to it.
   */
  async function applications() {
    for (let index = 1; running; index += 1) {
      await apply(index % cluster.sites.length, `a${index}`);
      await sleep(APPLY_EVERY_MS);
    }
  }

  async function apply(siteIndex: number, tag: string): Promise<number> {
    const site = cluster.sites[siteIndex]!;
    const email = `${label}-${tag}@candidates.test`;
    const answer = await api(
      'POST',
      '/v1/recruitment/job-posts/apply/',
      cluster.recruiter,
      JSON.stringify({
        jobPostId: `${label}-site${siteIndex}`,
        url: `${site.origin}/slow`,
        employer: 'Acme',
        jobTitle: 'Technical Writer',
        candidate: { email, firstName: 'Ada', lastName: `Lovelace ${tag}` },
        files: { cv: { type: 'File', url: `${site.origin}/files/cv.pdf`, filename: 'cv.pdf' } },
      }),
    );
    if (answer.status !== 200) return answer.status;
    accept('application', email);
    applicationIds.set(email, String(answer.json.applicationId));
    return 200;
  }

  /** Bookings at the slow hotel, each driven by its client (card, details, consent) from a task of its own. */
  async function bookings() {
    for (let index = 1; running; index += 1) {
      bookingDrivers.push(book(`b${index}`));
      await sleep(BOOK_EVERY_MS);
    }
  }

  /**
   * Sends until answered with `ok` (a 503 or no answer is sent again, after its `Retry-After` as a
   * client would), or the driver gives up.
   */
  async function until(ok: number, method: string, path: string, body: unknown) {
    for (;;) {
      const answer = await api(method, path, cluster.booker, body === undefined ? undefined : JSON.stringify(body));
      if (answer.status === ok || (answer.status >= 400 && answer.status < 500) || Date.now() > driveUntil) return answer;
      await sleep(Math.max(1, answer.retryAfterS) * 1_000);
    }
  }

  async function book(tag: string): Promise<void> {
    const otp = await until(200, 'POST', '/vault/otp', {});
    if (otp.status !== 200) return;
    const card = await until(200, 'POST', '/vault/pan', {
      otp: otp.json.id,
      pan: '4111111111111111',
      expiryMonth: 12,
      expiryYear: 2034,
      name: 'Ada Lovelace',
      cvv: '123',
    });
    if (card.status !== 200) return;
    const created = await api(
      'POST',
      '/v1/bookings',
      cluster.booker,
      JSON.stringify({ hotelId: bookingHotelId, checkIn, nights: 1, guests: 2, roomId: 'STD', rateId: 'STD:FLEX' }),
    );
    if (created.status !== 201) return;
    const bookingId = String(created.json.bookingId);
    accept('booking', bookingId);
    const details = {
      mainGuest: { firstName: 'Ada', lastName: `Lovelace ${tag}` },
      otherGuests: [],
      contact: { email: `${label}-${tag}@guests.test`, phone: '+44 20 7946 0000' },
    };
    let answered = '';
    while (Date.now() < driveUntil) {
      const status = await api('GET', `/book/${bookingId}`, cluster.booker, undefined);
      const stage = String(status.json.stage ?? '');
      if (status.json.state === 'finished') return;
      if ((stage === 'priceConfirmed' || stage === 'finalPriceConsent') && answered !== stage) {
        if (inputsHeld) {
          parkedAtInput += 1;
          await inputsHeld;
          parkedAtInput -= 1;
        }
        const input =
          stage === 'priceConfirmed'
            ? await until(200, 'POST', `/book/${bookingId}`, { details, panToken: card.json.panToken })
            : await until(200, 'POST', `/book/${bookingId}/consent`, { finalPrice: status.json.finalPrice });
        if (input.status === 200) answered = stage;
      }
      await sleep(500);
    }
  }

  /** Changes one subscription's grid in turn; each change is a new state version to push. */
  async function pushes() {
    for (let index = 0; running; index += 1) {
      const slot = index % cluster.subscriptions.length;
      await changeSubscription(slot, 2 + (index % 2));
      await sleep(1_500);
    }
  }

  async function changeSubscription(slot: number, daysAhead: number) {
    const id = cluster.subscriptions[slot]!;
    const answer = await api(
      'PATCH',
      `/v1/hotels/push-subscriptions/${id}`,
      cluster.partner,
      JSON.stringify({ searches: { daysAhead, nights: [1], guests: [2] } }),
    );
    if (answer.status === 200) accept('push', `/sub-${slot}@${Number(answer.json.stateVersion)}`);
  }

  /** Reads what became of every unit: the record in Postgres, the destination's copies, the receiver's pushes. */
  async function refresh(): Promise<void> {
    const rows = await cluster.db.query<{
      job_post_id: string;
      batch: boolean;
      state: string;
      error_code: string | null;
      finished: number | null;
    }>(
      `SELECT job_post_id, batch_id IS NOT NULL AS batch, state, error_code, (extract(epoch FROM finished_at) * 1000)::float8 AS finished
       FROM submissions WHERE job_post_id LIKE $1`,
      [`${label}-%`],
    );
    for (const row of rows.rows) {
      const unit = units.get(`${row.batch ? 'batch-row' : 'job-post'}:${row.job_post_id}`);
      if (!unit) continue;
      if (row.state === 'completed' || row.state === 'failed') {
        unit.completedAt ??= row.finished ?? Date.now();
        unit.copies = 1;
        if (row.state === 'failed') unit.failed = row.error_code ?? 'failed';
      }
    }
    // Copies are counted afresh from what the destination holds, with the time of the first one.
    const copies = new Map<string, { count: number; firstAt: number }>();
    cluster.sink.messages.forEach((message, index) => {
      const id = /^Message-ID: <([^>]+)>/im.exec(message.raw.toString('latin1'))?.[1];
      if (!id) return;
      const seen = copies.get(id);
      copies.set(id, { count: (seen?.count ?? 0) + 1, firstAt: seen?.firstAt ?? cluster.sink.acceptedAt[index] ?? Date.now() });
    });
    for (const [id, seen] of copies) {
      const unit = units.get(`mail:${id}`);
      if (!unit) continue;
      unit.copies = seen.count;
      unit.completedAt = seen.firstAt;
    }
    await refreshApplicationsAndBookings();
    for (const unit of units.values()) {
      if (unit.kind !== 'push' || unit.completedAt !== undefined) continue;
      const [path, version] = unit.key.split('@');
      const taken = cluster.pushSink.taken.find((push) => push.path === path && push.version >= Number(version));
      if (taken) {
        unit.completedAt = taken.at;
        unit.copies = 1;
      }
    }
  }

  /** Applications and bookings: their status in Postgres, held against what the sites and the hotel received. */
  async function refreshApplicationsAndBookings(): Promise<void> {
    // The failure's message is ours (what the run knew), never the candidate's or guest's data.
    const settle = (unit: Unit, verdict: Verdict, finishedAt: number | null, message?: string | null) => {
      unit.copies = verdict.copies;
      if (!verdict.final) return;
      // A late definite answer replaces an unknown outcome: the time of the last record counts.
      unit.completedAt = finishedAt ?? unit.completedAt ?? Date.now();
      if (unit.unknown && !verdict.unknown) unit.unknownReplaced = true;
      unit.unknown = verdict.unknown;
      if (verdict.failed !== undefined) unit.failed = message ? `${verdict.failed} (${message.slice(0, 160)})` : verdict.failed;
      else delete unit.failed;
      if (verdict.untruthful) unit.untruthful = verdict.untruthful;
      else delete unit.untruthful;
    };
    const ids = [...applicationIds.values()];
    if (ids.length > 0) {
      const rows = await cluster.db.query<{
        application_id: string;
        state: string;
        error_code: string | null;
        message: string | null;
        finished: number | null;
      }>(
        `SELECT application_id, state, error_code, message, (extract(epoch FROM finished_at) * 1000)::float8 AS finished FROM applications WHERE application_id = ANY($1::uuid[])`,
        [ids],
      );
      const byId = new Map(rows.rows.map((row) => [row.application_id, row]));
      const atSites = new Map<string, number>();
      for (const site of cluster.sites)
        for (const received of site.received) {
          const email = received.fields.email?.[0];
          if (email) atSites.set(email, (atSites.get(email) ?? 0) + 1);
        }
      for (const [email, applicationId] of applicationIds) {
        const unit = units.get(`application:${email}`);
        const row = byId.get(applicationId);
        if (unit)
          settle(
            unit,
            judgeApplication(row && { state: row.state, errorCode: row.error_code }, atSites.get(email) ?? 0),
            row?.finished ?? null,
            row?.message,
          );
      }
    }
    const bookingIds = [...units.values()].filter((unit) => unit.kind === 'booking').map((unit) => unit.key);
    if (bookingIds.length > 0) {
      const rows = await cluster.db.query<{
        booking_id: string;
        stage: string;
        state: string;
        error_code: string | null;
        error_message: string | null;
        reference: string;
        confirmation: string | null;
        finished: number | null;
      }>(
        `SELECT booking_id, stage, state, error_code, error_message, reference, confirmation->>'reference' AS confirmation,
           (extract(epoch FROM coalesce(succeeded_at, failed_at, updated_at)) * 1000)::float8 AS finished
         FROM bookings WHERE booking_id = ANY($1::uuid[])`,
        [bookingIds],
      );
      for (const row of rows.rows) {
        const unit = units.get(`booking:${row.booking_id}`);
        if (!unit) continue;
        const orders = cluster.hotel.orders.filter((order) => order.reference === row.reference).length;
        const reservation = cluster.hotel.reservations.get(row.reference);
        settle(
          unit,
          judgeBooking({ stage: row.stage, errorCode: row.error_code, confirmationReference: row.confirmation }, orders, reservation),
          row.state === 'finished' ? row.finished : null,
          row.error_message,
        );
      }
    }
  }

  /** Batch rows Postgres shows mid-work (admitted or processing) right now. */
  async function rowsInFlight(): Promise<Set<string>> {
    const result = await cluster.db.query<{ job_post_id: string }>(
      `SELECT job_post_id FROM submissions WHERE job_post_id LIKE $1 AND batch_id IS NOT NULL AND state IN ('admitted', 'processing')`,
      [`${label}-%`],
    );
    return new Set(result.rows.map((row) => row.job_post_id));
  }

  /** Rows a batch counted more than once (a finished row must be counted exactly once). */
  async function doubleCounted(): Promise<number> {
    if (batchIds.length === 0) return 0;
    const result = await cluster.db.query<{ extra: string }>(
      `SELECT COALESCE(sum(GREATEST(0, b.processed_count - (SELECT count(*) FROM submissions s WHERE s.batch_id = b.batch_id AND s.state IN ('completed', 'failed')))), 0) AS extra
       FROM batches b WHERE b.batch_id = ANY($1::uuid[])`,
      [batchIds],
    );
    return Number(result.rows[0]?.extra ?? 0);
  }

  async function pendingMailDeliveries(): Promise<number> {
    const result = await cluster.db.query<{ count: string }>(`SELECT count(*) FROM mail_deliveries WHERE state IN ('queued', 'deferred')`);
    return Number(result.rows[0]?.count ?? 0);
  }

  return {
    label,
    units,
    calls,
    /** Pushes of an older state after a newer one, during this workload. */
    regressions: () => cluster.pushSink.regressions - regressionsBefore,
    acceptRows: (ids: string[]) => ids.forEach((id) => accept('batch-row', id)),
    smtpFailures,
    batch,
    changeSubscription,
    refresh,
    rowsInFlight,
    doubleCounted,
    pendingMailDeliveries,
    apply,
    /** Every booking input waits until the returned function is called (bookings wait for their clients). */
    holdInputs(): () => void {
      let release = () => {};
      inputsHeld = new Promise<void>((resolve) => (release = resolve));
      return () => {
        inputsHeld = null;
        release();
      };
    },
    /** Bookings whose client holds an input right now. */
    parkedAtInput: () => parkedAtInput,
    start(kinds: { jobPosts?: boolean; mail?: boolean; pushes?: boolean; applications?: boolean; bookings?: boolean } = {}) {
      running = true;
      if (kinds.jobPosts !== false) loops.push(jobPosts());
      if (kinds.mail !== false) loops.push(mail());
      if (kinds.pushes !== false) loops.push(pushes());
      if (kinds.applications !== false) loops.push(applications());
      if (kinds.bookings !== false) loops.push(bookings());
      // Statuses read every second while the work flows: an unknown outcome a late answer replaces shows.
      loops.push(
        (async () => {
          while (running) {
            await refresh().catch(() => {});
            await sleep(1_000);
          }
        })(),
      );
    },
    async stop() {
      running = false;
      await Promise.all(loops.splice(0));
    },
    /**
     * Waits until every accepted unit is done, or until `deadline`; an unknown outcome may still be
     * replaced by the late answer of a run that lived on, so it is waited on until `settleUnknownBy`.
     */
    async drain(deadline: number, settleUnknownBy = 0): Promise<void> {
      driveUntil = deadline;
      for (;;) {
        await refresh().catch(() => {});
        const open = [...units.values()].some(
          (unit) => unit.completedAt === undefined || (unit.unknown === true && Date.now() < settleUnknownBy),
        );
        if (!open || Date.now() > deadline) break;
        await sleep(1_000);
      }
      await Promise.all(bookingDrivers.splice(0));
    },
  };
}

export type Workload = ReturnType<typeof createWorkload>;

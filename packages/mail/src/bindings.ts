import {
  AppError,
  BindBody,
  describeIssues,
  RecipientBody,
  UpdateBindingBody,
  UpdateExpiresAtBody,
  validationError,
  type BindingView,
  type ForwardingResponse,
} from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import {
  deleteClientBinding,
  findClientBinding,
  insertOrReplaceExpiredBinding,
  updateClientBinding,
  updateClientBindingExpiry,
  type BindingRow,
} from './bindings.queries.ts';
import { domainOf, isReceivingDomain } from './addresses.ts';
import { defaultExpiry, extendedExpiry, parseLatestDate } from './latest-date.ts';

/** What the binding use cases need: the store, the clock, and the domains this deployment receives mail for. */
export type BindingPorts = { db: Queryable; now: () => Date; domains: readonly string[] };

function toView(row: BindingRow): BindingView {
  return {
    recipient: row.recipient,
    forwardsTo: row.forwardsTo,
    keepSender: row.keepSender,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    counters: {
      received: row.receivedCount,
      delivered: row.deliveredCount,
      bounced: row.bouncedCount,
      lastDeliveredAt: row.lastDeliveredAt?.toISOString() ?? null,
    },
  };
}

/** A zod schema, structurally (this package does not depend on zod itself). */
type Schema<T> = {
  safeParse(input: unknown): { success: true; data: T } | { success: false; error: Parameters<typeof describeIssues>[0] };
};

function parse<T>(schema: Schema<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  return parsed.data;
}

function checkDomains(ports: BindingPorts, recipient: string, forwardsTo: string): void {
  const problems: string[] = [];
  if (!isReceivingDomain(ports.domains, recipient)) {
    problems.push(`recipient: ${domainOf(recipient)} is not a domain this service receives mail for (${ports.domains.join(', ')})`);
  }
  // A destination on our own domains would be another binding (or nothing): mail could loop
  // between bindings, so forwarding into ourselves is refused up front.
  if (isReceivingDomain(ports.domains, forwardsTo)) {
    problems.push(`forwardsTo: must not be on a domain this service receives mail for (${domainOf(forwardsTo)})`);
  }
  if (problems.length > 0) throw validationError(problems);
}

const notFound = (recipient: string) => new AppError('BindingNotFound', `no binding exists for ${recipient}`);

export async function bind(ports: BindingPorts, clientId: string, body: unknown): Promise<ForwardingResponse> {
  const input = parse(BindBody, body);
  checkDomains(ports, input.recipient, input.forwardsTo);
  const now = ports.now();
  const row = await insertOrReplaceExpiredBinding(ports.db, {
    recipient: input.recipient,
    clientId,
    forwardsTo: input.forwardsTo,
    keepSender: input.keepSender,
    expiresAt: defaultExpiry(now),
    now,
  });
  if (!row) throw new AppError('BindingAlreadyExists', `${input.recipient} already has an active binding`);
  return { message: 'created', binding: toView(row) };
}

export async function updateBinding(ports: BindingPorts, clientId: string, body: unknown): Promise<ForwardingResponse> {
  const input = parse(UpdateBindingBody, body);
  checkDomains(ports, input.recipient, input.forwardsTo);
  const row = await updateClientBinding(ports.db, clientId, input.recipient, {
    forwardsTo: input.forwardsTo,
    keepSender: input.keepSender,
  });
  if (!row) throw notFound(input.recipient);
  return { message: 'updated', binding: toView(row) };
}

export async function updateExpiresAt(ports: BindingPorts, clientId: string, body: unknown): Promise<ForwardingResponse> {
  const input = parse(UpdateExpiresAtBody, body);
  const latest = parseLatestDate(input.latestDate);
  if (!latest) {
    throw validationError([
      `latestDate: "${input.latestDate.slice(0, 80)}" is not a date in one of the accepted forms: ISO 8601 (2025-01-01T00:00:00Z), YYYY-MM-DD, or the long JavaScript form (Wed Jan 01 2025 00:00:00 GMT+0000)`,
    ]);
  }
  // An extension never ends a binding: an expiry in the past would free the recipient for another
  // client to bind. Ending one is deleteBinding's job. The store checks again against its own clock.
  const expiresAt = extendedExpiry(latest);
  const inThePast = () =>
    validationError([
      `latestDate: ${input.latestDate.slice(0, 80)} + 90 days is ${expiresAt.toISOString()}, in the past; an extension must leave the binding active (use deleteBinding to end it)`,
    ]);
  if (expiresAt.getTime() <= ports.now().getTime()) throw inThePast();
  const row = await updateClientBindingExpiry(ports.db, clientId, input.recipient, expiresAt);
  if (!row) throw (await findClientBinding(ports.db, clientId, input.recipient)) ? inThePast() : notFound(input.recipient);
  return { message: 'date updated', binding: toView(row) };
}

export async function deleteBinding(ports: BindingPorts, clientId: string, body: unknown): Promise<ForwardingResponse> {
  const input = parse(RecipientBody, body);
  const row = await deleteClientBinding(ports.db, clientId, input.recipient);
  if (!row) throw notFound(input.recipient);
  return { message: 'deleted', binding: toView(row) };
}

/** The owner's view of one binding with its counters. */
export async function getBinding(ports: Pick<BindingPorts, 'db'>, clientId: string, query: unknown): Promise<ForwardingResponse> {
  const input = parse(RecipientBody, query);
  const row = await findClientBinding(ports.db, clientId, input.recipient);
  if (!row) throw notFound(input.recipient);
  return { message: 'found', binding: toView(row) };
}

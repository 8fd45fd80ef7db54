import { sealedColumns, type ColumnSealer } from '@quarry/keyring';
import { randomUUID } from 'node:crypto';
import {
  AppError,
  CreatePushSubscriptionBody,
  describeIssues,
  UpdatePushSubscriptionBody,
  validationError,
  type OperatorPushSubscriptionView,
  type PushDeliveryView,
  type PushSubscriptionView,
} from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { findGrantedHotelRows } from './hotels.queries.ts';
import {
  deleteSubscription,
  findSubscription,
  findSubscriptionById,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  listSubscriptionsWithLastDelivery,
  resumeSubscription,
  updateSubscription,
  type DeliveryRow,
  type SubscriptionRow,
} from './push.queries.ts';
import type { EnqueuePush } from './refresh-search.ts';

/** The push subscriptions' API keys, sealed by the keyring for their subscription's row. */
export const pushKeySealing = (sealer: ColumnSealer) => ({
  encrypt: (subscriptionId: string, plaintext: string): Buffer => sealer.seal(sealedColumns.pushApiKey, subscriptionId, plaintext),
  decrypt: (subscriptionId: string, sealed: Buffer): string => sealer.open(sealedColumns.pushApiKey, subscriptionId, sealed),
});

export type SubscriptionPorts = {
  db: Queryable;
  enqueuePush: EnqueuePush;
  /** Throws when the push URL would be refused by the push sender (SSRF policy). */
  checkPushUrl: (url: string) => Promise<void>;
  /** Seals the client's API key for its subscription's row (the keyring's); the clear key is never stored. */
  encrypt: (subscriptionId: string, plaintext: string) => Buffer;
};

function toSubscriptionView(row: SubscriptionRow): PushSubscriptionView {
  return {
    subscriptionId: row.subscriptionId,
    pushUrl: row.pushUrl,
    hotelIds: row.hotelIds,
    searches: row.searches,
    stateVersion: row.stateVersion,
    deliveredVersion: row.deliveredVersion,
    failingSince: row.failingSince?.toISOString() ?? null,
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

function toDeliveryView(row: DeliveryRow): PushDeliveryView {
  return { ...row, startedAt: row.startedAt.toISOString() };
}

async function checkUrl(ports: SubscriptionPorts, url: string): Promise<void> {
  try {
    await ports.checkPushUrl(url);
  } catch (error) {
    throw validationError([`pushUrl: refused: ${(error as Error).message}`]);
  }
}

async function checkHotels(ports: SubscriptionPorts, clientId: string, hotelIds: string[]): Promise<string[]> {
  const unique = [...new Set(hotelIds)];
  const granted = new Set((await findGrantedHotelRows(ports.db, clientId, unique)).map((hotel) => hotel.hotelId));
  const refused = unique.filter((hotelId) => !granted.has(hotelId));
  if (refused.length > 0) throw validationError(refused.slice(0, 50).map((hotelId) => `hotelIds: no access to hotel ${hotelId}`));
  return unique;
}

export async function createSubscription(ports: SubscriptionPorts, clientId: string, body: unknown): Promise<PushSubscriptionView> {
  const parsed = CreatePushSubscriptionBody.safeParse(body);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  await checkUrl(ports, parsed.data.pushUrl);
  const hotelIds = await checkHotels(ports, clientId, parsed.data.hotelIds);
  const subscriptionId = randomUUID();
  const row = await insertSubscription(ports.db, {
    subscriptionId,
    clientId,
    pushUrl: parsed.data.pushUrl,
    apiKeyCiphertext: ports.encrypt(subscriptionId, parsed.data.apiKey),
    hotelIds,
    searches: parsed.data.searches,
  });
  await ports.enqueuePush(row.subscriptionId, `v${row.stateVersion}`);
  return toSubscriptionView(row);
}

export async function changeSubscription(
  ports: SubscriptionPorts,
  clientId: string,
  subscriptionId: string,
  body: unknown,
): Promise<PushSubscriptionView> {
  const parsed = UpdatePushSubscriptionBody.safeParse(body);
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  if (!(await findSubscription(ports.db, clientId, subscriptionId)))
    throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  if (parsed.data.pushUrl) await checkUrl(ports, parsed.data.pushUrl);
  const hotelIds = parsed.data.hotelIds ? await checkHotels(ports, clientId, parsed.data.hotelIds) : undefined;
  const row = await updateSubscription(ports.db, clientId, subscriptionId, {
    ...(parsed.data.pushUrl ? { pushUrl: parsed.data.pushUrl } : {}),
    ...(parsed.data.apiKey ? { apiKeyCiphertext: ports.encrypt(subscriptionId, parsed.data.apiKey) } : {}),
    ...(hotelIds ? { hotelIds } : {}),
    ...(parsed.data.searches ? { searches: parsed.data.searches } : {}),
  });
  if (!row) throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  await ports.enqueuePush(row.subscriptionId, `v${row.stateVersion}`);
  return toSubscriptionView(row);
}

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

export async function getSubscription(ports: { db: Queryable }, clientId: string, subscriptionId: string): Promise<PushSubscriptionView> {
  const row = isUuid(subscriptionId) ? await findSubscription(ports.db, clientId, subscriptionId) : null;
  if (!row) throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  return toSubscriptionView(row);
}

export async function listClientSubscriptions(ports: { db: Queryable }, clientId: string): Promise<PushSubscriptionView[]> {
  return (await listSubscriptions(ports.db, clientId)).map(toSubscriptionView);
}

export async function removeSubscription(ports: { db: Queryable }, clientId: string, subscriptionId: string): Promise<void> {
  if (!isUuid(subscriptionId) || !(await deleteSubscription(ports.db, clientId, subscriptionId))) {
    throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  }
}

/** Operator views: any client's subscription, its delivery log, and lifting a suspension. */
export async function getSubscriptionForOperator(
  ports: { db: Queryable },
  subscriptionId: string,
): Promise<PushSubscriptionView & { clientId: string }> {
  const row = isUuid(subscriptionId) ? await findSubscriptionById(ports.db, subscriptionId) : null;
  if (!row) throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  return { ...toSubscriptionView(row), clientId: row.clientId };
}

export async function listDeliveryLog(ports: { db: Queryable }, subscriptionId: string, limit = 100): Promise<PushDeliveryView[]> {
  await getSubscriptionForOperator(ports, subscriptionId);
  return (await listDeliveries(ports.db, subscriptionId, limit)).map(toDeliveryView);
}

export async function resumeSuspendedSubscription(
  ports: { db: Queryable; enqueuePush: EnqueuePush },
  subscriptionId: string,
): Promise<PushSubscriptionView> {
  if (!isUuid(subscriptionId) || !(await resumeSubscription(ports.db, subscriptionId)))
    throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  const row = await findSubscriptionById(ports.db, subscriptionId);
  if (!row) throw new AppError('NotFound', `subscription ${subscriptionId} not found`);
  await ports.enqueuePush(row.subscriptionId, `v${row.stateVersion}`);
  return toSubscriptionView(row);
}

/** Operators: every client's subscriptions, with lag, failures and the last push's outcome. */
export async function listSubscriptionsForOperator(ports: { db: Queryable }, limit = 200): Promise<OperatorPushSubscriptionView[]> {
  return (await listSubscriptionsWithLastDelivery(ports.db, limit)).map(({ subscription, lastDelivery }) => ({
    ...toSubscriptionView(subscription),
    clientId: subscription.clientId,
    failures: subscription.failures,
    lagVersions: subscription.stateVersion - subscription.deliveredVersion,
    lastDelivery: lastDelivery ? { ...lastDelivery, startedAt: lastDelivery.startedAt.toISOString() } : null,
  }));
}

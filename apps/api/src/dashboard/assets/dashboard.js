// Quarry operations dashboard: a small client that polls the admin API (with the session cookie
// and the CSRF token) and renders the view named in the URL hash. No build step, no framework.
const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
const view = document.getElementById('view');
let previousCounts = null;
let timer = null;

const escapeHtml = (text) => String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const percent = (rate) => `${Math.round(rate * 100)}%`;
const age = (epochMs) => {
  const minutes = Math.floor((Date.now() - epochMs) / 60000);
  return minutes < 60 ? `${minutes} min` : minutes < 2880 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 1440)} d`;
};

// Client names for views that carry client ids: read with each render, at most every 30 s.
let clientNames = { at: 0, byId: new Map() };
async function loadClientNames() {
  if (Date.now() - clientNames.at < 30000) return;
  const clients = await api('/v1/admin/clients').catch(() => null);
  if (clients) clientNames = { at: Date.now(), byId: new Map(clients.map((client) => [client.clientId, client.name])) };
}
// The name, with the id on hover; the id itself when the client is not known (yet).
const clientLabel = (clientId) => {
  const name = clientNames.byId.get(clientId);
  return name ? `<span title="${escapeHtml(clientId)}">${escapeHtml(name)}</span>` : escapeHtml(clientId);
};

async function api(path, init = {}) {
  const response = await fetch(path, {
    ...init,
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'x-csrf-token': csrf, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  if (response.status === 401) {
    window.location.href = '/dashboard/login';
    throw new Error('signed out');
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(body.message || `HTTP ${response.status}`), { status: response.status });
  return body;
}

// A chart of one value per minute over the last hour (oldest left, now right), as inline SVG: bars
// (counts) or a line through the minutes that have a value (rates), a point on each, and the top
// value and the time span written on the axes. `null` values (no job post finished) leave a gap.
function minuteChart(values, options) {
  const width = 240;
  const height = 72;
  const left = 4;
  const plotTop = 12;
  const plotBottom = 58;
  const top = options.max ?? Math.max(1, ...values.filter((value) => value !== null));
  const x = (index) => left + (index / Math.max(values.length - 1, 1)) * (width - 2 * left);
  const y = (value) => plotBottom - (value / top) * (plotBottom - plotTop);
  const runs = [];
  let run = [];
  values.forEach((value, index) => {
    if (value === null) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(`${x(index).toFixed(1)},${y(value).toFixed(1)}`);
  });
  if (run.length) runs.push(run);
  const shown = values.map((value, index) => ({ value, index })).filter(({ value }) => value !== null && (options.pointsAtZero || value > 0));
  const barWidth = Math.max(1.5, ((width - 2 * left) / Math.max(values.length, 1)) * 0.7);
  return `<svg class="chart" data-testid="${options.testId}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(options.label)}">
    <line class="axis" x1="${left}" y1="${plotBottom}" x2="${width - left}" y2="${plotBottom}"/>
    <text class="tick" x="${left}" y="9">${escapeHtml(options.format(top))}</text>
    <text class="tick" x="${left}" y="${height - 2}">−${values.length} min</text>
    <text class="tick" x="${width - left}" y="${height - 2}" text-anchor="end">now</text>
    ${options.bars
      ? shown.map(({ value, index }) => `<rect class="bar" x="${(x(index) - barWidth / 2).toFixed(1)}" y="${y(value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(plotBottom - y(value)).toFixed(1)}"/>`).join('')
      : runs.map((points) => `<polyline class="line" points="${points.join(' ')}"/>`).join('')}
    ${shown.map(({ value, index }) => `<circle class="point" cx="${x(index).toFixed(1)}" cy="${y(value).toFixed(1)}" r="2"><title>${escapeHtml(options.format(value))}, ${values.length - 1 - index} min ago</title></circle>`).join('')}
  </svg>`;
}

async function batchesPage() {
  const [batches, activity] = await Promise.all([api('/v1/admin/batches?limit=100'), api('/v1/admin/mining-activity?minutes=60')]);
  const now = Date.now();
  const processedTotal = batches.reduce((sum, batch) => sum + batch.processedCount, 0);
  const throughput = new Map();
  if (previousCounts) {
    const minutes = (now - previousCounts.at) / 60000;
    for (const batch of batches) {
      const before = previousCounts.byBatch.get(batch.batchId);
      if (before !== undefined && minutes > 0) throughput.set(batch.batchId, Math.round((batch.processedCount - before) / minutes));
    }
  }
  previousCounts = { at: now, total: processedTotal, byBatch: new Map(batches.map((batch) => [batch.batchId, batch.processedCount])) };
  const running = batches.filter((batch) => batch.state !== 'finished' && batch.state !== 'paused');
  const lastHour = activity.minutes;
  const processedLastHour = lastHour.reduce((sum, minute) => sum + minute.processed, 0);
  const succeededLastHour = lastHour.reduce((sum, minute) => sum + minute.succeeded, 0);
  return `<h1>Batches</h1>
  <div class="cards">
    <div class="card"><div class="muted">Running</div><div class="value" data-testid="running-count">${running.length}</div></div>
    <div class="card"><div class="muted">Paused</div><div class="value">${batches.filter((batch) => batch.state === 'paused').length}</div></div>
    <div class="card"><div class="muted">Job posts processed, last hour (per minute)</div><div class="value" data-testid="processed-last-hour">${processedLastHour}</div>
      ${minuteChart(lastHour.map((minute) => minute.processed), { testId: 'chart-processed', label: 'Job posts processed per minute, last hour', bars: true, format: (value) => `${value}/min` })}</div>
    <div class="card"><div class="muted">Success rate, last hour (per minute)</div><div class="value">${processedLastHour ? percent(succeededLastHour / processedLastHour) : '—'}</div>
      ${minuteChart(lastHour.map((minute) => minute.successRate), { testId: 'chart-success', label: 'Success rate per minute, last hour', max: 1, pointsAtZero: true, format: percent })}</div>
  </div>
  <table><thead><tr><th>Batch</th><th>Client</th><th>Employer</th><th>State</th><th>Jobs</th><th>Processed</th><th>Success</th><th>Rows/min</th><th>Age</th><th></th></tr></thead><tbody>
  ${batches.map((batch) => `<tr data-batch="${batch.batchId}">
    <td data-label="Batch"><a href="#/batches/${batch.batchId}">${batch.batchId.slice(0, 8)}</a></td>
    <td data-label="Client">${clientLabel(batch.clientId)}</td>
    <td data-label="Employer">${escapeHtml(batch.employer ?? '—')}</td>
    <td data-label="State"><span class="state ${batch.state}" data-testid="state">${batch.state}</span></td>
    <td data-label="Jobs" class="num">${batch.jobsCount}</td>
    <td data-label="Processed" class="num"><span data-testid="processed">${batch.processedCount}</span> <progress max="1" value="${batch.processedRate}"></progress></td>
    <td data-label="Success" class="num">${percent(batch.successRate)}</td>
    <td data-label="Rows/min" class="num">${throughput.get(batch.batchId) ?? '—'}</td>
    <td data-label="Age">${age(batch.createdAt)}</td>
    <td data-label="">${actionButton(batch)}</td></tr>`).join('') || '<tr><td colspan="10" class="muted" data-testid="no-batches">No batches yet: a client sends one to POST /v1/recruitment/job-posts/batch/mine/</td></tr>'}
  </tbody></table>`;
}

function actionButton(batch) {
  if (batch.state === 'paused') return `<button data-action="resume" data-batch="${batch.batchId}">Resume</button>`;
  if (batch.state === 'finished') return '';
  return `<button data-action="pause" data-batch="${batch.batchId}">Pause</button>`;
}

const jobPostRows = (rows) => rows.map((row) => `<tr>
  <td data-label="Row" class="num">${row.rowNo}</td><td data-label="URL" class="url">${escapeHtml(row.url)}</td>
  <td data-label="State">${escapeHtml(row.state)}</td><td data-label="Error">${escapeHtml(row.errorCode ?? '—')}</td>
  <td data-label="Adapter">${escapeHtml(row.adapter ?? '—')}</td><td data-label="Duration" class="num">${row.durationMs ?? '—'} ms</td></tr>`).join('');

async function batchPage(batchId) {
  const [batch, failed, slowest] = await Promise.all([
    api(`/v1/admin/batches/${batchId}`),
    api(`/v1/admin/batches/${batchId}/job-posts?filter=failed&limit=20`),
    api(`/v1/admin/batches/${batchId}/job-posts?filter=slowest&limit=10`),
  ]);
  const head = '<thead><tr><th>Row</th><th>URL</th><th>State</th><th>Error</th><th>Adapter</th><th>Duration</th></tr></thead>';
  return `<p><a href="#/batches">← Batches</a></p><h1>Batch ${batch.batchId.slice(0, 8)} <span class="state ${batch.state}" data-testid="state">${batch.state}</span></h1>
  ${batch.pausedReason ? `<p class="muted">Paused: ${escapeHtml(batch.pausedReason)}</p>` : ''}
  <div class="cards">
    <div class="card"><div class="muted">Processed</div><div class="value">${batch.processedCount} / ${batch.jobsCount}</div></div>
    <div class="card"><div class="muted">Succeeded</div><div class="value">${batch.succeededCount}</div></div>
    <div class="card"><div class="muted">Failed</div><div class="value">${batch.failedCount}</div></div>
    <div class="card"><div class="muted">Success rate</div><div class="value">${percent(batch.successRate)}</div></div>
  </div>
  <p>${actionButton(batch)} ${batch.failedCount > 0 ? '<button data-action="resubmit" data-batch="' + batch.batchId + '">Re-submit failed as a new batch</button>' : ''}</p>
  <h2>Errors by code</h2>
  <table data-testid="error-breakdown"><thead><tr><th>Error code</th><th>Job posts</th><th></th></tr></thead><tbody>
  ${batch.errorCodes.map((entry) => `<tr><td data-label="Error code">${escapeHtml(entry.errorCode)}</td><td data-label="Job posts" class="num">${entry.count}</td>
    <td data-label=""><progress max="1" value="${entry.count / Math.max(batch.failedCount, 1)}"></progress></td></tr>`).join('') || '<tr><td colspan="3" class="muted">No failures</td></tr>'}
  </tbody></table>
  <h2>Failed job posts</h2><table>${head}<tbody>${jobPostRows(failed) || '<tr><td colspan="6" class="muted">None</td></tr>'}</tbody></table>
  <h2>Slowest job posts</h2><table>${head}<tbody>${jobPostRows(slowest) || '<tr><td colspan="6" class="muted">None yet</td></tr>'}</tbody></table>`;
}

async function queuesPage() {
  const [queues, applications] = await Promise.all([api('/v1/admin/queues'), optional('/v1/admin/applications')]);
  return `<h1>Queues</h1><p><a href="/dashboard/queues/raw">Raw queue view (read-only)</a></p>
  <table><thead><tr><th>Queue</th><th>Waiting</th><th>Active</th><th>Delayed</th><th>Failed</th><th>Workers</th><th>State</th><th></th></tr></thead><tbody>
  ${queues.map((queue) => `<tr><td data-label="Queue">${escapeHtml(queue.name)}</td>
    <td data-label="Waiting" class="num">${(queue.counts.wait ?? 0) + (queue.counts.prioritized ?? 0)}</td><td data-label="Active" class="num">${queue.counts.active ?? 0}</td>
    <td data-label="Delayed" class="num">${queue.counts.delayed ?? 0}</td><td data-label="Failed" class="num">${queue.counts.failed ?? 0}</td>
    <td data-label="Workers" class="num" title="${escapeHtml((queue.workerProcesses || []).join(', '))}">${queue.workers}</td><td data-label="State">${queue.paused ? '<span class="state paused">paused</span>' : '<span class="state processing">running</span>'}</td>
    <td data-label=""><button data-action="${queue.paused ? 'queue-resume' : 'queue-pause'}" data-queue="${escapeHtml(queue.name)}">${queue.paused ? 'Resume' : 'Pause'}</button></td></tr>`).join('')}
  </tbody></table>${applications ? applicationsSection(applications) : ''}`;
}

// Applications: counts by status and error code, and the newest failures with their screenshots.
function applicationsSection(overview) {
  return `<h2>Applications</h2>
  <table data-testid="application-counts"><thead><tr><th>Status</th><th>Error code</th><th>Count</th></tr></thead><tbody>
  ${overview.counts.map((row) => `<tr><td data-label="Status">${escapeHtml(row.status)}</td><td data-label="Error code">${escapeHtml(row.errorCode ?? '—')}</td><td data-label="Count" class="num">${row.count}</td></tr>`).join('') || '<tr><td colspan="3" class="muted">None yet</td></tr>'}
  </tbody></table>
  <h2>Recent failed applications</h2>
  <table data-testid="application-failures"><thead><tr><th>Application</th><th>Client</th><th>Job post</th><th>Host</th><th>Error code</th><th>Message</th><th>Ended</th><th></th></tr></thead><tbody>
  ${overview.recentFailures.map((row) => `<tr><td data-label="Application">${escapeHtml(row.applicationId.slice(0, 8))}</td><td data-label="Client">${clientLabel(row.clientId)}</td>
    <td data-label="Job post">${escapeHtml(row.jobPostId)}</td><td data-label="Host">${escapeHtml(row.host ?? '—')}</td><td data-label="Error code">${escapeHtml(row.errorCode ?? '—')}</td>
    <td data-label="Message">${escapeHtml(row.message ?? '')}</td><td data-label="Ended">${row.finishedAt ? `${age(Date.parse(row.finishedAt))} ago` : '—'}</td>
    <td data-label="">${row.screenshot ? `<a href="${escapeHtml(row.screenshot)}" target="_blank" rel="noopener">Screenshot</a>` : ''}</td></tr>`).join('') || '<tr><td colspan="8" class="muted">None</td></tr>'}
  </tbody></table>`;
}

async function optional(path) {
  try {
    return await api(path);
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

async function feedsPage() {
  const [subscriptions, mail, mailboxes] = await Promise.all([
    optional('/v1/admin/push-subscriptions'),
    optional('/v1/admin/mail/deliveries'),
    optional('/v1/admin/mail/outlook-accounts'),
  ]);
  const list = (value) => (Array.isArray(value) ? value : value && Array.isArray(value.items) ? value.items : null);
  const pushes = list(subscriptions);
  return `<h1>Feeds &amp; mail</h1><h2>Push subscriptions</h2>
  ${pushes ? `<table data-testid="push-subscriptions"><thead><tr><th>Subscription</th><th>Client</th><th>Push URL</th><th>State</th><th>Lag</th><th>Failures</th><th>Last push</th><th></th></tr></thead><tbody>
    ${pushes.map((item) => `<tr><td data-label="Subscription">${escapeHtml(item.subscriptionId.slice(0, 8))}</td><td data-label="Client">${clientLabel(item.clientId)}</td>
      <td data-label="Push URL" class="url">${escapeHtml(item.pushUrl)}</td>
      <td data-label="State">${item.suspendedAt ? '<span class="state paused">suspended</span>' : item.failingSince ? '<span class="state paused">failing</span>' : '<span class="state processing">ok</span>'}</td>
      <td data-label="Lag" class="num">${item.lagVersions} version(s)</td><td data-label="Failures" class="num">${item.failures}</td>
      <td data-label="Last push">${item.lastDelivery ? `${escapeHtml(item.lastDelivery.status ?? item.lastDelivery.outcome)} · ${age(Date.parse(item.lastDelivery.startedAt))} ago${item.lastDelivery.error ? ` · ${escapeHtml(item.lastDelivery.error)}` : ''}` : '—'}</td>
      <td data-label="">${item.suspendedAt ? `<button data-action="push-resume" data-subscription="${item.subscriptionId}">Resume</button>` : ''}</td></tr>`).join('') || '<tr><td colspan="8" class="muted">None</td></tr>'}
    </tbody></table>` : '<p class="muted">The push-subscription admin API is not available in this deployment.</p>'}
  <h2>Forwarding delivery</h2>
  ${mail ? `<div class="cards" data-testid="mail-summary">
      <div class="card"><div class="muted">Queued</div><div class="value">${mail.queued}</div></div>
      <div class="card"><div class="muted">Deferred</div><div class="value">${mail.deferred}</div></div>
      <div class="card"><div class="muted">Oldest pending</div><div class="value">${mail.oldestPendingAt ? age(Date.parse(mail.oldestPendingAt)) : '—'}</div></div>
      <div class="card"><div class="muted">Delivered</div><div class="value">${mail.delivered}</div></div>
      <div class="card"><div class="muted">Bounced</div><div class="value">${mail.bounced}</div></div>
    </div>
    <table><thead><tr><th>Deferred to</th><th>Attempts</th><th>Next attempt</th><th>Last error</th></tr></thead><tbody>
    ${mail.deferredDeliveries.map((delivery) => `<tr><td data-label="Deferred to">${escapeHtml(delivery.forwardsTo)}</td><td data-label="Attempts" class="num">${delivery.attempts}</td>
      <td data-label="Next attempt">${escapeHtml(new Date(delivery.nextAttemptAt).toLocaleString())}</td><td data-label="Last error">${escapeHtml(delivery.lastError ?? '—')}</td></tr>`).join('') || '<tr><td colspan="4" class="muted">Nothing deferred</td></tr>'}
    </tbody></table>` : '<p class="muted">The mail delivery admin API is not available in this deployment.</p>'}
  ${mailboxes ? poolMailboxesSection(mailboxes) : ''}`;
}

// Pool mailboxes read over IMAP: the broken and failing accounts first, each with its last error.
function poolMailboxesSection(pool) {
  const state = (account) => (account.state === 'ok' ? '<span class="state processing">ok</span>' : `<span class="state paused">${escapeHtml(account.state)}</span>`);
  const when = (iso) => (iso ? `${age(Date.parse(iso))} ago` : '—');
  return `<h2>Pool mailboxes</h2>
  <div class="cards" data-testid="mailbox-counts">
    <div class="card"><div class="muted">Available</div><div class="value">${pool.counts.available}</div></div>
    <div class="card"><div class="muted">Watched</div><div class="value">${pool.counts.watched}</div></div>
    <div class="card"><div class="muted">Failing</div><div class="value">${pool.counts.failing}</div></div>
    <div class="card"><div class="muted">Broken</div><div class="value">${pool.counts.broken}</div></div>
  </div>
  <table data-testid="pool-mailboxes"><thead><tr><th>Account</th><th>State</th><th>Read by</th><th>Forwarded</th><th>Last message</th><th>Last error</th></tr></thead><tbody>
  ${pool.accounts.map((account) => `<tr><td data-label="Account"><div>${escapeHtml(account.email)}${account.alias ? `<div class="muted">${escapeHtml(account.alias)} → ${escapeHtml(account.forwardsTo)}</div>` : ''}</div></td>
    <td data-label="State">${state(account)}</td>
    <td data-label="Read by">${account.watcher ? ({ idle: 'IDLE', poll: 'polling' }[account.mode] ?? 'logging in') : account.assigned ? 'not watched' : 'not handed out'}</td>
    <td data-label="Forwarded" class="num">${account.forwarded}</td><td data-label="Last message">${when(account.lastMessageAt)}</td>
    <td data-label="Last error">${account.lastError ? `${escapeHtml(account.lastError)} · ${when(account.lastErrorAt)}` : '—'}</td></tr>`).join('') || '<tr><td colspan="6" class="muted">No accounts loaded</td></tr>'}
  </tbody></table>`;
}

// Renders overlap (navigation, the 2 s refresh, a button): only the newest one may write, or a
// slow answer for the page just left would replace the page asked for since.
let latestRender = 0;

async function render() {
  const ticket = ++latestRender;
  const [, section, id] = (window.location.hash || '#/batches').split('/');
  for (const link of document.querySelectorAll('[data-nav]')) link.classList.toggle('active', link.dataset.nav === (section || 'batches'));
  try {
    // Pages of their own scripts (dashboard-callbacks.js) register in window.quarryPages.
    await loadClientNames();
    const extra = (window.quarryPages || {})[section];
    const page = extra ? await extra(id) : section === 'batches' && id ? await batchPage(id) : section === 'queues' ? await queuesPage() : section === 'feeds' ? await feedsPage() : await batchesPage();
    if (ticket === latestRender) view.innerHTML = page;
  } catch (error) {
    if (ticket === latestRender && error.message !== 'signed out') view.insertAdjacentHTML('afterbegin', `<p class="error" role="alert">${escapeHtml(error.message)}</p>`);
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    await render();
    schedule();
  }, 2000);
}

view.addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-action]');
  if (!button) return;
  button.disabled = true;
  const { action, batch, queue } = button.dataset;
  try {
    if (action === 'pause' || action === 'resume') await api(`/v1/admin/batches/${batch}/${action}`, { method: 'POST', body: '{}' });
    if (action === 'queue-pause' || action === 'queue-resume') await api(`/v1/admin/queues/${encodeURIComponent(queue)}/${action.slice(6)}`, { method: 'POST' });
    if (action === 'push-resume') await api(`/v1/admin/push-subscriptions/${button.dataset.subscription}/resume`, { method: 'POST' });
    if (action === 'resubmit') {
      const created = await api(`/v1/admin/batches/${batch}/resubmit-failed`, { method: 'POST' });
      window.location.hash = `#/batches/${created.batchId}`;
    }
  } catch (error) {
    window.alert(error.message);
  }
  await render();
});

window.addEventListener('hashchange', () => {
  previousCounts = null;
  void render();
});
void render().then(schedule);

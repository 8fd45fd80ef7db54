// The dashboard's Callbacks page (recruitment's callbacks, ADR 0053): per client, what was
// delivered, failed or is waiting, and one client's newest events. A page of its own, registered
// for dashboard.js's router; it uses that script's api(), escapeHtml() and age().
/* global api, escapeHtml, age */
(() => {
  const when = (iso) => (iso ? `${age(Date.parse(iso))} ago` : '—');
  const stateBadge = (state) => `<span class="state ${state === 'delivered' ? 'processing' : state === 'failed' ? 'paused' : 'created'}">${escapeHtml(state)}</span>`;

  async function callbacksPage(clientId) {
    if (clientId) return clientPage(decodeURIComponent(clientId));
    const overview = await api('/v1/admin/callbacks');
    return `<h1>Callbacks</h1>
    <p class="muted">Mining outcomes, batches' ends and applications' ends POSTed to each client's URL, retried for a day.</p>
    <table data-testid="callback-clients"><thead><tr><th>Client</th><th>Default URL</th><th>Waiting</th><th>In flight</th><th>Delivered</th><th>Failed</th><th>Oldest waiting</th><th>Last delivered</th><th>Last error</th></tr></thead><tbody>
    ${overview.clients.map((client) => `<tr><td data-label="Client"><a href="#/callbacks/${encodeURIComponent(client.clientId)}">${escapeHtml(client.name)}</a><div class="muted">${escapeHtml(client.clientId)}</div></td>
      <td data-label="Default URL" class="url">${escapeHtml(client.defaultUrl ?? '—')}</td>
      <td data-label="Waiting" class="num">${client.counts.waiting}</td><td data-label="In flight" class="num">${client.counts.sending}</td>
      <td data-label="Delivered" class="num">${client.counts.delivered}</td><td data-label="Failed" class="num">${client.counts.failed}</td>
      <td data-label="Oldest waiting">${when(client.oldestWaitingAt)}</td><td data-label="Last delivered">${when(client.lastDeliveredAt)}</td>
      <td data-label="Last error">${escapeHtml(client.lastError ?? '—')}</td></tr>`).join('') || '<tr><td colspan="9" class="muted">No client has callbacks</td></tr>'}
    </tbody></table>`;
  }

  async function clientPage(clientId) {
    const client = await api(`/v1/admin/callbacks/${encodeURIComponent(clientId)}?limit=100`);
    return `<p><a href="#/callbacks">← Callbacks</a></p><h1>Callbacks of ${escapeHtml(clientId)}</h1>
    <p>Default URL: <span class="url">${escapeHtml(client.defaultUrl ?? 'none')}</span>${client.previousSecretValidUntil ? ` · the previous secret signs too until ${escapeHtml(new Date(client.previousSecretValidUntil).toLocaleString())}` : ''}</p>
    <div class="cards" data-testid="callback-counts">
      <div class="card"><div class="muted">Waiting</div><div class="value">${client.counts.waiting}</div></div>
      <div class="card"><div class="muted">In flight</div><div class="value">${client.counts.sending}</div></div>
      <div class="card"><div class="muted">Delivered</div><div class="value">${client.counts.delivered}</div></div>
      <div class="card"><div class="muted">Failed</div><div class="value">${client.counts.failed}</div></div>
      <div class="card"><div class="muted">Oldest waiting</div><div class="value">${client.oldestWaitingAt ? age(Date.parse(client.oldestWaitingAt)) : '—'}</div></div>
    </div>
    <table data-testid="callback-events"><thead><tr><th>Event</th><th>About</th><th>State</th><th>Attempts</th><th>Last answer</th><th>Next attempt</th><th>Recorded</th><th>webhook-id</th></tr></thead><tbody>
    ${client.recent.map((event) => `<tr><td data-label="Event">${escapeHtml(event.type)}</td><td data-label="About">${escapeHtml(event.subjectId)}</td>
      <td data-label="State">${stateBadge(event.state)}</td><td data-label="Attempts" class="num">${event.attempts}</td>
      <td data-label="Last answer">${event.lastStatus ? `HTTP ${event.lastStatus}` : escapeHtml(event.lastError ?? '—')}</td>
      <td data-label="Next attempt">${event.nextAttemptAt ? escapeHtml(new Date(event.nextAttemptAt).toLocaleTimeString()) : '—'}</td>
      <td data-label="Recorded">${when(event.createdAt)}</td><td data-label="webhook-id" class="url">${escapeHtml(event.webhookId)}</td></tr>`).join('') || '<tr><td colspan="8" class="muted">No events yet</td></tr>'}
    </tbody></table>`;
  }

  window.quarryPages = Object.assign(window.quarryPages || {}, { callbacks: callbacksPage });
})();

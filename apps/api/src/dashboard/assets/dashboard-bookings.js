// The dashboard's Bookings page: every client's bookings by stage and by error code, the orders
// the hotel could not confirm or deny (to check with it by reference), the other recent failures,
// and the hotels whose sources fail. Read only. A page of its own, registered for dashboard.js's
// router; it uses that script's api(), escapeHtml() and age().
/* global api, escapeHtml, age */
(() => {
  const when = (iso) => (iso ? `${age(Date.parse(iso))} ago` : '—');
  // One block, so a phone's label-and-value row keeps the id under the name.
  const hotel = (row) => `<div>${escapeHtml(row.hotelName ?? row.hotelId)}${row.hotelName ? `<div class="muted">${escapeHtml(row.hotelId)}</div>` : ''}</div>`;

  const problems = (rows, testId, empty) => `<table data-testid="${testId}"><thead><tr><th>Reference</th><th>Hotel</th><th>Client</th><th>Error code</th><th>Message</th><th>Failed</th></tr></thead><tbody>
    ${rows.map((row) => `<tr data-booking="${escapeHtml(row.bookingId)}"><td data-label="Reference"><code>${escapeHtml(row.reference)}</code></td>
      <td data-label="Hotel">${hotel(row)}</td><td data-label="Client" title="${escapeHtml(row.clientId)}">${escapeHtml(row.clientName)}</td>
      <td data-label="Error code">${escapeHtml(row.errorCode ?? '—')}</td><td data-label="Message" class="message">${escapeHtml(row.errorMessage ?? '')}</td>
      <td data-label="Failed">${when(row.failedAt)}</td></tr>`).join('') || `<tr><td colspan="6" class="muted">${empty}</td></tr>`}
    </tbody></table>`;

  async function bookingsPage() {
    const overview = await api('/v1/admin/bookings?hours=24');
    const total = overview.byStage.reduce((sum, row) => sum + row.count, 0);
    return `<h1>Bookings</h1>
    <div class="cards">
      <div class="card"><div class="muted">Bookings</div><div class="value" data-testid="bookings-total">${total}</div></div>
      <div class="card"><div class="muted">Outcome unknown, last ${overview.hours} h</div><div class="value" data-testid="outcome-unknown-count">${overview.outcomeUnknown.length}</div></div>
      <div class="card"><div class="muted">Failed, last ${overview.hours} h</div><div class="value">${overview.byErrorCode.reduce((sum, row) => sum + row.count, 0)}</div></div>
    </div>
    <div class="columns">
      <div><h2>By stage</h2>
      <table data-testid="bookings-by-stage"><thead><tr><th>Stage</th><th>Bookings</th></tr></thead><tbody>
      ${overview.byStage.map((row) => `<tr><td data-label="Stage">${escapeHtml(row.stage)}</td><td data-label="Bookings" class="num">${row.count}</td></tr>`).join('') || '<tr><td colspan="2" class="muted">No bookings yet</td></tr>'}
      </tbody></table></div>
      <div><h2>Failed by error code, last ${overview.hours} h</h2>
      <table data-testid="bookings-by-error"><thead><tr><th>Error code</th><th>Bookings</th></tr></thead><tbody>
      ${overview.byErrorCode.map((row) => `<tr><td data-label="Error code">${escapeHtml(row.errorCode)}</td><td data-label="Bookings" class="num">${row.count}</td></tr>`).join('') || '<tr><td colspan="2" class="muted">No failures</td></tr>'}
      </tbody></table></div>
    </div>
    <h2>Outcome unknown: check with the hotel by reference</h2>
    ${problems(overview.outcomeUnknown, 'bookings-outcome-unknown', 'None')}
    <h2>Recent failures</h2>
    ${problems(overview.recentFailures, 'bookings-failures', 'None')}
    <h2>Source failures per hotel, last ${overview.hours} h</h2>
    <table data-testid="bookings-source-failures"><thead><tr><th>Hotel</th><th>Rates fetches failed</th><th>Bookings failed</th><th>Last source failure</th></tr></thead><tbody>
    ${overview.sourceFailuresByHotel.map((row) => `<tr><td data-label="Hotel">${hotel(row)}</td><td data-label="Rates fetches failed" class="num">${row.rateFailures}</td>
      <td data-label="Bookings failed" class="num">${row.failedBookings}</td>
      <td data-label="Last source failure" class="message">${row.lastFailure ? `${escapeHtml(row.lastFailure.kind)}: ${escapeHtml(row.lastFailure.reason)} · ${when(row.lastFailure.at)}` : '—'}</td></tr>`).join('') || '<tr><td colspan="4" class="muted">No source failures</td></tr>'}
    </tbody></table>`;
  }

  window.quarryPages = Object.assign(window.quarryPages || {}, { bookings: bookingsPage });
})();

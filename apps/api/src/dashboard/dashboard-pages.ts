const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

const head = (title: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Quarry</title>
<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css"></head>`;

export function loginPage(options: { error?: string; sso?: boolean }): string {
  return `${head('Sign in')}<body class="login"><main class="login-card">
<h1>Quarry operations</h1>
<p class="muted">Sign in with the secret of a client that has the <code>admin</code> scope.</p>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="/dashboard/login">
  <label for="secret">Client secret</label>
  <input id="secret" name="secret" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
${options.sso ? '<p class="muted">or</p><p><a class="button" href="/dashboard/sso/start">Sign in with single sign-on</a></p>' : ''}
</main></body></html>`;
}

export function appShell(options: { csrf: string; clientName: string }): string {
  return `${head('Dashboard')}<body>
<meta name="csrf-token" content="${escapeHtml(options.csrf)}">
<header class="top">
  <strong class="brand">Quarry</strong>
  <nav><a href="#/batches" data-nav="batches">Batches</a><a href="#/queues" data-nav="queues">Queues</a><a href="#/feeds" data-nav="feeds">Feeds &amp; mail</a><a href="#/bookings" data-nav="bookings">Bookings</a><a href="#/callbacks" data-nav="callbacks">Callbacks</a></nav>
  <form method="post" action="/dashboard/logout" class="signout"><input type="hidden" name="csrf" value="${escapeHtml(options.csrf)}">
    <span class="muted">${escapeHtml(options.clientName)}</span><button type="submit" class="link">Sign out</button></form>
</header>
<main id="view" aria-live="polite"><p class="muted">Loading…</p></main>
<script src="/dashboard/assets/dashboard-callbacks.js" defer></script>
<script src="/dashboard/assets/dashboard-bookings.js" defer></script>
<script src="/dashboard/assets/dashboard.js" defer></script>
</body></html>`;
}

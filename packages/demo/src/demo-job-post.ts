/**
 * A job post with its application form, server-rendered as many careers pages are: sections in
 * fieldsets, a required select, a radio group and a CV upload, so mining it shows every kind of
 * question on a machine with no internet access.
 */
export const demoJobPostPaths = ['/jobs/backend-engineer'];

export function demoJobPostPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Backend Engineer · Demo Robotics</title></head>
<body>
<h1>Backend Engineer</h1>
<p>Demo Robotics · Lisbon or remote (EU)</p>
<form action="/jobs/backend-engineer/apply" method="post" enctype="multipart/form-data">
  <fieldset><legend>Personal information</legend>
    <label for="first_name">First name *</label><input id="first_name" name="first_name" autocomplete="given-name" required>
    <label for="last_name">Last name *</label><input id="last_name" name="last_name" autocomplete="family-name" required>
    <label for="email">Email *</label><input id="email" name="email" type="email" autocomplete="email" required>
    <label for="phone">Phone</label><input id="phone" name="phone" type="tel" autocomplete="tel">
  </fieldset>
  <fieldset><legend>Your application</legend>
    <label for="resume">CV / résumé *</label><input id="resume" name="resume" type="file" accept=".pdf,.doc,.docx" required>
    <label for="experience">Years of backend experience *</label>
    <select id="experience" name="experience" required><option value="0-2">0–2</option><option value="3-5">3–5</option><option value="6+">6 or more</option></select>
    <p>Do you need a work permit for the EU? *</p>
    <label><input type="radio" name="work_permit" value="yes" required> Yes</label>
    <label><input type="radio" name="work_permit" value="no"> No</label>
    <label for="motivation">Why Demo Robotics?</label><textarea id="motivation" name="motivation"></textarea>
  </fieldset>
  <button type="submit">Apply</button>
</form>
</body></html>`;
}

/** Server-rendered application forms of the shapes real careers pages use, for mining tests. */
export const fixtureForms = {
  /** Labels by `for`, a required marker by attribute and by asterisk, a select with a placeholder. */
  basic: `<!doctype html><html><head><title>Apply</title></head><body>
<h1>Software Engineer</h1>
<form action="/submit" method="post">
  <h2>Personal information</h2>
  <label for="first_name">First name *</label><input id="first_name" name="first_name" type="text">
  <label for="last_name">Last name</label><input id="last_name" name="last_name" type="text" required>
  <label for="email">Email</label><input id="email" name="email" type="email" required>
  <label for="phone">Phone</label><input id="phone" name="phone" type="tel">
  <h2>Documents</h2>
  <label for="resume">Resume/CV</label><input id="resume" name="resume" type="file" accept=".pdf,.docx" required>
  <label for="cover">Cover letter</label><textarea id="cover" name="cover_letter"></textarea>
  <h2>Questions</h2>
  <label for="source">How did you hear about us?</label>
  <select id="source" name="source"><option value="">Select...</option><option value="web">Website</option><option value="friend">A friend</option></select>
  <input type="hidden" name="csrf" value="x"><button type="submit">Apply</button>
</form></body></html>`,

  /** Wrapping labels, aria-label, aria-labelledby, radio and checkbox groups, a date, a consent box. */
  grouped: `<!doctype html><html><body>
<form>
  <h3>About you</h3>
  <label>Full name <span>*</span><input name="full_name" required></label>
  <input name="linkedin" aria-label="LinkedIn profile">
  <span id="start-label">Earliest start date</span><input name="start" type="date" aria-labelledby="start-label">
  <fieldset><legend>Are you authorized to work in the UK? *</legend>
    <label><input type="radio" name="work_auth" value="yes" required> Yes</label>
    <label><input type="radio" name="work_auth" value="no"> No</label>
  </fieldset>
  <fieldset><legend>Which languages do you speak?</legend>
    <label><input type="checkbox" name="languages" value="en"> English</label>
    <label><input type="checkbox" name="languages" value="fr"> French</label>
    <label><input type="checkbox" name="languages" value="de"> German</label>
  </fieldset>
  <label><input type="checkbox" name="privacy" required> I agree to the privacy policy</label>
  <label for="skills">Skills</label>
  <select id="skills" name="skills" multiple><option value="ts">TypeScript</option><option value="go">Go</option></select>
  <input type="submit" value="Send">
</form></body></html>`,

  /** The form exists only once the page's script has run (single-page careers sites). */
  scripted: `<!doctype html><html><body><h1>Designer</h1><div id="root">Loading…</div>
<script>setTimeout(() => { document.getElementById('root').innerHTML =
  '<form><label for="portfolio">Portfolio URL *</label><input id="portfolio" name="portfolio" type="url" required>' +
  '<label for="tool">Favourite tool</label><select id="tool" name="tool"><option value="">-</option><option>Figma</option><option>Sketch</option></select></form>'; }, 100);</script>
</body></html>`,

  closed: `<!doctype html><html><body><h1>Data Analyst</h1><p>Sorry, this position has been filled.</p></body></html>`,

  login: `<!doctype html><html><body><form><label for="u">Email</label><input id="u" name="u" type="email">
<label for="p">Password</label><input id="p" name="p" type="password"></form></body></html>`,

  noForm: `<!doctype html><html><body><h1>Careers</h1><p>We are hiring. Send your CV by post.</p></body></html>`,
} as const;

export type FixtureFormName = keyof typeof fixtureForms;

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

  /**
   * Sections and groups as careers pages draw them: a heading just above the form, a fieldset whose
   * legend titles several questions (an address block), radio and checkbox groups named only by the
   * text before them, placeholder options, a slider with its number box, a custom dropdown's hidden
   * value box. Both generic miners must read it the same way.
   */
  sections: `<!doctype html><html><head><title>Apply</title></head><body>
<h1>Support Engineer</h1>
<div class="description"><h3>Requirements</h3><p>Three years of support work.</p></div>
<h2>Your details</h2>
<form action="/submit" method="post">
  <label for="name">Full name *</label><input id="name" name="name">
  <fieldset><legend>Home address *</legend>
    <input name="street" placeholder="Street">
    <input name="town" placeholder="Town">
    <input name="postcode" placeholder="Postcode">
  </fieldset>
  <label for="phone">Phone</label><input id="phone" name="phone" type="tel">
  <div class="form-group">
    <label for="mail_street">Mailing address *</label>
    <div><input id="mail_street" name="mail_street" placeholder="Street">
      <div class="row"><input name="mail_town" placeholder="Town"><input name="mail_postcode" placeholder="Postcode"></div></div>
  </div>
  <h2>Eligibility</h2>
  <p>Are you authorized to work in the UK? *</p>
  <div class="choices">
    <label><input type="radio" name="q_auth" value="yes"> Yes</label>
    <label><input type="radio" name="q_auth" value="no"> No</label>
  </div>
  <fieldset><legend>Preferred shift</legend>
    <label><input type="radio" name="shift" value="d"> Day</label>
    <label><input type="radio" name="shift" value="n"> Night</label>
  </fieldset>
  <div class="form-group">
    <label for="q_days_answer">Which days can you work? *</label>
    <input type="hidden" id="q_days_answer" name="q_days_answer">
    <label><input type="checkbox" name="q_days_1"> Weekdays</label>
    <label><input type="checkbox" name="q_days_2"> Weekends</label>
  </div>
  <label for="tools">Tools you use *</label>
  <select id="tools" name="tools" multiple><option value="">Select...</option><option value="1">Zendesk</option><option value="2">Jira</option></select>
  <label for="notice">Notice period</label>
  <select id="notice" name="notice"><option value="0">Please select</option><option value="1">None</option><option value="2">One month</option></select>
  <label for="relocate">Willing to relocate?</label>
  <select id="relocate" name="relocate"><option value="no_selection">-- No answer --</option><option value="y">Yes</option><option value="n">No</option></select>
  <label for="gender">Gender</label>
  <select id="gender" name="gender"><option value="0">Decline to answer</option><option value="1">Female</option><option value="2">Male</option></select>
  <span id="years_label">Years of experience</span>
  <div class="slider"><div role="slider" tabindex="0" aria-labelledby="years_label" aria-valuemin="0" aria-valuemax="30" aria-valuenow="0" aria-required="true"></div>
    <input type="number" name="years" min="0" max="30" aria-hidden="true" tabindex="-1"></div>
  <label>Highest degree</label>
  <div class="dropdown"><input name="degree" type="text" readonly tabindex="-1" style="width:0;height:0;border:0;padding:0">
    <select id="degree_list" aria-label="Highest degree"><option value="">Select an option…</option><option>Bachelor's</option><option>Master's</option></select></div>
  <fieldset><legend>Voluntary self-identification</legend>
    <p>Veteran status</p>
    <div><label><input type="radio" name="veteran" value="1"> I am a veteran</label><label><input type="radio" name="veteran" value="2"> I am not a veteran</label></div>
    <label for="pronouns">Pronouns</label><input id="pronouns" name="pronouns">
  </fieldset>
  <label for="notes">Anything else?</label><textarea id="notes" name="notes"></textarea>
  <button type="submit">Apply</button>
</form></body></html>`,

  closed: `<!doctype html><html><body><h1>Data Analyst</h1><p>Sorry, this position has been filled.</p></body></html>`,

  login: `<!doctype html><html><body><form><label for="u">Email</label><input id="u" name="u" type="email">
<label for="p">Password</label><input id="p" name="p" type="password"></form></body></html>`,

  noForm: `<!doctype html><html><body><h1>Careers</h1><p>We are hiring. Send your CV by post.</p></body></html>`,
} as const;

export type FixtureFormName = keyof typeof fixtureForms;

import { describe, expect, it } from 'vitest';
import { categorize } from './question-categories.ts';

describe('categorize', () => {
  it.each([
    ['Email', 'email'],
    ['Phone number with country code', 'phone'],
    ['Postal', 'zip'],
    ['Please state your full legal name:', 'fullName'],
    ['Are you legally authorized to work in the United States of America (USA) without sponsorship?', 'workAuthorization'],
    ['Will you require sponsorship, now or in the future, to work in the U.S.?', 'sponsorship'],
    ['If you are chosen for a position with Acme, how soon would you be able to start?', 'startDate'],
    ['Desired Pay', 'salary'],
    ['Race/Ethnicity', 'race'],
    ['Ethnicity', 'ethnicity'],
    ['I authorize Acme Corporation to obtain information about me from previous employers and schools.', 'consent'],
    ['Highest Education Obtained', 'education'],
    ['Experience', 'experience'],
  ])('%s → %s', (label, category) => {
    expect(categorize({ label })).toBe(category);
  });

  it.each([
    'Do you reside within a 60 mile radius of our office address?',
    'Do you have experience selling complex professional services and consulting engagements?',
    'Do you currently hold U.S. citizenship?',
    'Current company',
  ])('gives no category to "%s"', (label) => {
    expect(categorize({ label })).toBeUndefined();
  });

  it.each([
    // German, French, Spanish, Italian, Dutch, Portuguese, Polish identity forms.
    ['Vorname', 'firstName'],
    ['Nachname', 'lastName'],
    ['Postleitzahl', 'zip'],
    ['Lebenslauf', 'resume'],
    ['Prénom', 'firstName'],
    ['Nom de famille', 'lastName'],
    ['Téléphone', 'phone'],
    ['Lettre de motivation', 'coverLetter'],
    ['Nombre', 'firstName'],
    ['Apellidos', 'lastName'],
    ['Teléfono', 'phone'],
    ['Nombre completo', 'fullName'],
    ['Ciudad', 'city'],
    ['Nome', 'firstName'],
    ['Cognome', 'lastName'],
    ['Città', 'city'],
    ['Indirizzo', 'address'],
    ['CAP', 'zip'],
    ['Paese', 'country'],
    ['Voornaam', 'firstName'],
    ['Achternaam', 'lastName'],
    ['Woonplaats', 'city'],
    ['Telefoonnummer', 'phone'],
    ['Motivatiebrief', 'coverLetter'],
    ['Primeiro nome', 'firstName'],
    ['Sobrenome', 'lastName'],
    ['Nome completo', 'fullName'],
    ['Endereço', 'address'],
    ['Currículo', 'resume'],
    ['Imię', 'firstName'],
    ['Nazwisko', 'lastName'],
    ['Imię i nazwisko', 'fullName'],
    ['Nome e cognome', 'fullName'],
    ['Vor- und Nachname', 'fullName'],
    ['Kod pocztowy', 'zip'],
    ['Miejscowość', 'city'],
  ])('%s → %s (other languages)', (label, category) => {
    expect(categorize({ label })).toBe(category);
  });

  it('still reads a field name when the label says nothing', () => {
    expect(categorize({ label: 'Your answer', name: 'postal_code' })).toBe('zip');
  });
});

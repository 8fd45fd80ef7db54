import { bambooDoubleJobs, startBambooApiDouble } from '@quarry/testing';
import { apiCase, cv } from './api-case.ts';

/**
 * BambooHR's Add New Candidate through the router: an answer to every question of the opening with
 * every documented standard field (text, selects, a date, both files), each with the parameter the
 * reference documents for it (https://documentation.bamboohr.com/reference/add-new-candidate-1).
 */
export const bambooApiCase = apiCase('bamboohr', startBambooApiDouble, () => {
  const url = `https://acme.bamboohr.com/careers/${bambooDoubleJobs.standardOnly}`;
  const coverLetter = {
    type: 'File' as const,
    filename: 'cover.docx',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    bytes: Buffer.from([0x50, 0x4b, 3, 4, 0, 13, 10, 255]),
  };
  const asSent = (id: string, value: string, parameter = id) => ({ id, value, fields: [{ name: parameter, value }] });
  return {
    url,
    delivered: (email) => [
      asSent('firstName', 'Ada'),
      asSent('lastName', 'Lovelace'),
      asSent('email', email),
      asSent('phone', '+1 801 555 0100', 'phoneNumber'),
      asSent('streetAddress', '12 St James’s Square', 'address'),
      asSent('city', 'Salt Lake City'),
      asSent('state', 'UT'),
      asSent('zip', '84101'),
      asSent('countryId', 'United States', 'country'),
      asSent('linkedinUrl', 'https://linkedin.example/in/ada'),
      { id: 'dateAvailable', value: '2027-02-01T00:00:00.000Z', fields: [{ name: 'dateAvailable', value: '2027-02-01' }] },
      asSent('desiredPay', '$70,000 a year', 'desiredSalary'),
      asSent('websiteUrl', 'https://ada.example'),
      asSent('educationLevelId', "College - Master's Degree", 'highestEducation'),
      asSent('educationInstitutionName', 'University of London', 'collegeName'),
      asSent('references', 'Charles Babbage, +44 20 7946 0002\nMary Somerville'),
      asSent('referredBy', 'Charles Babbage'),
      { id: 'resumeFileId', value: cv, fields: [{ name: 'resumeFile', value: { bytes: cv.bytes } }] },
      { id: 'coverLetterFileId', value: coverLetter, fields: [{ name: 'coverLetterFile', value: { bytes: coverLetter.bytes } }] },
    ],
    fixed: () => [{ name: 'jobId', value: bambooDoubleJobs.standardOnly }],
    // The reference's statuses (400, 401/403, 404) with the double's bodies (the reference shows none).
    refusals: [
      [[{ status: 400, body: { error: 'Missing required field(s): firstName' } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { error: 'The job opening is not open for applications' } }], 'JobExpired'],
      [[{ status: 400, body: { error: 'jobId 21: job opening not found' } }], 'JobNotFound'],
      [[{ status: 400, body: { error: 'dateAvailable must have the format YYYY-MM-DD' } }], 'ApplicantDetailsInvalid'],
      [[{ status: 403, body: { error: 'The API key owner has no access to ATS settings' } }], 'ApiKeyRejected'],
      [[{ status: 404, body: { error: 'Not found' } }], 'JobNotFound'],
    ],
  };
});

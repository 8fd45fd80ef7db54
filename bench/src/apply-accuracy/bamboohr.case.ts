import { candidate } from '@quarry/applier/hosted-cases';
import { bambooDoubleJobs, startBambooApiDouble } from '@quarry/testing';
import { apiCase, cv, underOwnName } from './api-case.ts';

export const bambooApiCase = apiCase('bamboohr', startBambooApiDouble, () => {
  const url = `https://acme.bamboohr.com/careers/${bambooDoubleJobs.standardOnly}`;
  const coverLetter = { type: 'File' as const, filename: 'cover.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: Buffer.from([0x50, 0x4b, 3, 4, 0, 13, 10, 255]) };
  return {
    url,
    unchanged: (email) => [
      ...underOwnName([
        ['firstName', 'Ada'],
        ['lastName', 'Lovelace'],
        ['email', email],
        ['city', 'London'],
        ['state', 'NY'],
        ['zip', 'SW1Y 4JH'],
        ['linkedinUrl', 'https://linkedin.example/in/ada'],
        ['websiteUrl', 'https://ada.example'],
      ]),
      ['phone', 'phoneNumber', candidate.phone],
      ['streetAddress', 'address', '12 St James’s Square'],
      ['countryId', 'country', 'Canada'],
    ],
    answers: () => [
      { id: 'dateAvailable', value: '2027-02-01T00:00:00.000Z' },
      { id: 'coverLetterFileId', value: coverLetter },
      { id: 'resumeFileId', value: cv },
    ],
    fields: () => [
      { name: 'dateAvailable', value: '2027-02-01' },
      { name: 'jobId', value: bambooDoubleJobs.standardOnly },
      { name: 'resumeFile', value: { bytes: cv.bytes } },
      { name: 'coverLetterFile', value: { bytes: coverLetter.bytes } },
    ],
    refusals: [
      [[{ status: 400, body: { error: 'Missing required field: zip' } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { error: 'Job opening is not open' } }], 'JobExpired'],
      [[{ status: 400, body: { error: 'resumeFile: invalid file type' } }], 'FileTypeNotSupported'],
      [[{ status: 409, body: { error: 'Applicant already applied to this job opening' } }], 'AlreadyApplied'],
    ],
  };
});

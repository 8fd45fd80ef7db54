import { describe, expect, it } from 'vitest';
import { detectAts } from './ats-detect.ts';

describe('detectAts', () => {
  it.each([
    ['https://boards.greenhouse.io/acme/jobs/4000000001', { ats: 'greenhouse', board: 'acme', jobId: '4000000001' }],
    ['https://job-boards.greenhouse.io/acme/jobs/4000000001?gh_src=x', { ats: 'greenhouse', board: 'acme', jobId: '4000000001' }],
    ['https://job-boards.eu.greenhouse.io/acme/jobs/4000000001', { ats: 'greenhouse', board: 'acme', jobId: '4000000001' }],
    ['https://boards.greenhouse.io/embed/job_app?for=acme&token=4000000001', { ats: 'greenhouse', board: 'acme', jobId: '4000000001' }],
    ['https://www.acme.com/careers/open-roles?gh_jid=4000000001', { ats: 'greenhouse', board: null, jobId: '4000000001' }],
    [
      'https://jobs.lever.co/acme/0a1b2c3d-0000-4000-8000-0000000000a1/apply',
      { ats: 'lever', host: 'jobs.lever.co', site: 'acme', postingId: '0a1b2c3d-0000-4000-8000-0000000000a1' },
    ],
    [
      'https://jobs.eu.lever.co/acme/0a1b2c3d-0000-4000-8000-0000000000a1',
      { ats: 'lever', host: 'jobs.eu.lever.co', site: 'acme', postingId: '0a1b2c3d-0000-4000-8000-0000000000a1' },
    ],
    [
      'https://jobs.ashbyhq.com/acme/0a1b2c3d-0000-4000-8000-00000000a001/application',
      { ats: 'ashby', org: 'acme', postingId: '0a1b2c3d-0000-4000-8000-00000000a001' },
    ],
    ['https://apply.workable.com/acme/j/ACME000001/apply/', { ats: 'workable', account: 'acme', shortcode: 'ACME000001' }],
    ['https://apply.workable.com/j/acme000001', { ats: 'workable', account: null, shortcode: 'ACME000001' }],
    [
      'https://jobs.smartrecruiters.com/Acme/744000000000001-example-job',
      { ats: 'smartrecruiters', company: 'Acme', postingId: '744000000000001' },
    ],
    ['https://acme.bamboohr.com/careers/12', { ats: 'bamboohr', company: 'acme', jobId: '12' }],
    ['https://acme.recruitee.com/o/backend-engineer', { ats: 'recruitee', company: 'acme', slug: 'backend-engineer' }],
    [
      'https://acme.na.teamtailor.com/jobs/123-test-role/applications/new',
      { ats: 'teamtailor', host: 'acme.na.teamtailor.com', jobPath: 'jobs/123-test-role' },
    ],
    ['https://acme.applytojob.com/apply/AbCdE00001/Test-Role', { ats: 'jazzhr', company: 'acme', jobPath: 'apply/AbCdE00001/Test-Role' }],
    [
      'https://acme.breezy.hr/p/0a1b2c3d4e5f-software-engineer/apply',
      { ats: 'breezy', company: 'acme', posting: '0a1b2c3d4e5f-software-engineer' },
    ],
    ['https://www.careers-page.com/acme/job/AB12CD34', { ats: 'manatal', org: 'acme', jobHash: 'AB12CD34' }],
  ])('recognises %s', (url, target) => {
    expect(detectAts(url)).toEqual(target);
  });

  it.each([
    'https://boards.greenhouse.io/acme',
    'https://jobs.lever.co/acme',
    'https://jobs.ashbyhq.com/acme',
    'https://www.bamboohr.com/careers/12',
    'https://acme.bamboohr.com/careers',
    'https://careers.acme.com/jobs/123',
    'https://acme.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R1',
    'not a url',
  ])('leaves %s to the generic miner', (url) => {
    expect(detectAts(url)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { workdayBoardOf, workdayBoardOfPage } from './workday-board.ts';

describe('the Workday board of a posting', () => {
  it('is the host of a tenant of its own', () => {
    expect(workdayBoardOf('https://Acme.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R1')).toBe('acme.wd5.myworkdayjobs.com');
    // A site named like the shared hosts' path segment does not make a tenant of its own host shared.
    expect(workdayBoardOf('https://acme.wd5.myworkdayjobs.com/recruiting/job/London/Engineer_R1')).toBe('acme.wd5.myworkdayjobs.com');
  });

  it('is the host and the tenant the path names on myworkdaysite.com, with or without a locale', () => {
    expect(workdayBoardOf('https://wd5.myworkdaysite.com/recruiting/acme/External/job/London/Engineer_R1')).toBe(
      'wd5.myworkdaysite.com/acme',
    );
    expect(workdayBoardOf('https://wd3.myworkdaysite.com/en-US/recruiting/Globex_Corp/Careers/job/Engineer_R2/apply')).toBe(
      'wd3.myworkdaysite.com/globex_corp',
    );
  });

  it('is none for a shared host whose path names no tenant, and for other vendors', () => {
    expect(workdayBoardOf('https://wd5.myworkdaysite.com/')).toBeNull();
    expect(workdayBoardOf('https://wd5.myworkdaysite.com/en-US/acme/job/Engineer_R1')).toBeNull();
    expect(workdayBoardOf('https://jobs.lever.co/acme/1234')).toBeNull();
    expect(workdayBoardOf('not a url')).toBeNull();
  });

  it('of a page served under another name is its host, and its tenant when the path names one', () => {
    expect(workdayBoardOfPage(new URL('http://127.0.0.1:4100/recruiting/acme/External/job/Remote/Developer_R1/apply/applyManually'))).toBe(
      '127.0.0.1:4100/acme',
    );
    expect(workdayBoardOfPage(new URL('http://127.0.0.1:4100/acme/job/Remote/Developer_R1/apply/applyManually'))).toBe('127.0.0.1:4100');
  });
});

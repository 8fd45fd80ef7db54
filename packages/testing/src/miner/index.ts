export * from './ats-fixture-cases.ts';
export * from './generic-form-cases.ts';

export * from './vendor-cases.ts';

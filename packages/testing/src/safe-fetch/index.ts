export { createTestCertificate } from './test-certificate.ts';
export { mapLookup, startServer } from './test-server.ts';
export type { Handler, TestServer } from './test-server.ts';

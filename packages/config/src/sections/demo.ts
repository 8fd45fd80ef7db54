import { z } from 'zod';
import { port, type VariablesOf } from './section.ts';

export const demoVariables = {
  // The demo (`npm run demo`): its sites listen on a loopback address of their own, the only one
  // the SSRF guard then lets through, so client URLs still cannot reach Postgres or Redis on 127.0.0.1.
  DEMO_HOST: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address' }).default('127.0.0.77'),
  DEMO_PORT: port.default(8090),
  DEMO_SMTP_PORT: port.default(2587),
};

/** Where `start --demo` runs its stand-ins for hotels, a careers page, a push receiver and a mailbox. */
export const readDemo = (vars: VariablesOf<typeof demoVariables>) => ({
  demo: { host: vars.DEMO_HOST, port: vars.DEMO_PORT, smtpPort: vars.DEMO_SMTP_PORT },
});

import { z } from 'zod';

/** What a client may call. A route names the scope it needs; `admin` reaches operator surfaces. */
export const scopes = ['recruitment', 'forwarding', 'hotels', 'booking', 'admin'] as const;
export const Scope = z.enum(scopes);
export type Scope = z.infer<typeof Scope>;

import { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import { optionalSecretKey } from './secret.ts';
import { trueOrFalse, type VariablesOf } from './section.ts';

const keyId = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** `QUARRY_KEYS`: a comma list of `id:base64key`, each key 32 bytes (ADR 0059). */
export const keyringKeys = z.string().transform((text, context) => {
  const keys: Array<{ id: string; material: Buffer }> = [];
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const separator = entry.indexOf(':');
    const id = separator < 0 ? '' : entry.slice(0, separator);
    const material = Buffer.from(entry.slice(separator + 1), 'base64');
    if (!keyId.test(id))
      context.addIssue({
        code: 'custom',
        message: `"${entry.slice(0, 40)}…": each key is id:base64key, the id 1 to 32 lower-case letters, digits and dashes`,
      });
    else if (id === 'secret')
      context.addIssue({ code: 'custom', message: 'the id "secret" is the key derived from QUARRY_SECRET_KEY: give another id' });
    else if (material.length !== 32)
      context.addIssue({ code: 'custom', message: `key ${id}: must be 32 bytes, base64-encoded (quarry keys generate)` });
    else if (keys.some((key) => key.id === id)) context.addIssue({ code: 'custom', message: `key ${id}: given twice` });
    else keys.push({ id, material });
  }
  return keys;
});

// The keys that seal values at rest (ADR 0059). QUARRY_SECRET_KEY alone: a key derived from it
// (id `secret`) seals; QUARRY_KEYS adds keys and QUARRY_CURRENT_KEY_ID names the sealing one.
export const keyringVariables = {
  QUARRY_KEYS: keyringKeys.optional(),
  QUARRY_CURRENT_KEY_ID: z.string().regex(keyId, 'must be the id of a key of QUARRY_KEYS (or "secret")').optional(),
  QUARRY_OPEN_SECRET_KEY_SEALS: trueOrFalse.default('true'),
};
export const keyringBorrowed = optionalSecretKey;

/** What the keyring is made of (`createDeploymentKeyring` of packages/keyring reads it). */
export const readKeyring = (vars: VariablesOf<typeof keyringBorrowed & typeof keyringVariables>) => {
  const keys = vars.QUARRY_KEYS ?? [];
  const openSecretKeySeals = vars.QUARRY_OPEN_SECRET_KEY_SEALS === 'true';
  const secretKey = vars.QUARRY_SECRET_KEY === undefined ? undefined : Buffer.from(vars.QUARRY_SECRET_KEY, 'base64');
  const problems: string[] = [];
  if (keys.length > 0 && vars.QUARRY_CURRENT_KEY_ID === undefined)
    problems.push('QUARRY_CURRENT_KEY_ID is required with QUARRY_KEYS: the id of the key new values are sealed with');
  const current = vars.QUARRY_CURRENT_KEY_ID;
  if (current !== undefined && current !== 'secret' && !keys.some((key) => key.id === current))
    problems.push(`QUARRY_CURRENT_KEY_ID ${current} is not a key of QUARRY_KEYS`);
  if (current === 'secret' && !(secretKey && openSecretKeySeals))
    problems.push('QUARRY_CURRENT_KEY_ID secret needs QUARRY_SECRET_KEY and QUARRY_OPEN_SECRET_KEY_SEALS not false');
  if (!openSecretKeySeals && keys.length === 0)
    problems.push('QUARRY_OPEN_SECRET_KEY_SEALS=false needs QUARRY_KEYS: no key would be left to seal with');
  if (problems.length > 0) throw new ConfigError(problems);
  return { keyring: { secretKey, keys, currentKeyId: current, openSecretKeySeals } };
};

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadConfig, type ConfigScope } from '@quarry/config';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

/**
 * The shipped deployments (docker-compose.yml, infra/k8s) against the code: every role a process
 * can run is deployed, with a stop budget longer than its shutdown grace, and what the role's own
 * settings need (Chromium's shared memory and home, the vault's key); the vault's key reaches no
 * other role.
 */

const repoFile = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The roles, one app each (`apps/<role>/src/<role>.role.ts`); `all` is their union and needs no service of its own. */
const roles = readdirSync(new URL('../apps', import.meta.url)).filter((app) =>
  existsSync(new URL(`../apps/${app}/src/${app}.role.ts`, import.meta.url)),
);

/** What a role reads, from its own configuration: the `mining` section's Chromium, the `vault` section's key. */
const settingsOf = (role: string) => loadConfig({ QUARRY_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') }, role as ConfigScope);
const runsChromium = (role: string) => 'mining' in settingsOf(role);
const opensTheVault = (role: string) => 'vault' in settingsOf(role);

type ComposeService = { command?: string[]; environment?: Record<string, string>; shm_size?: string; stop_grace_period?: string };
const compose = parse(repoFile('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };

type Container = {
  args?: string[];
  envFrom?: Array<{ secretRef?: { name: string } }>;
  env?: Array<{ name: string; value?: string }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
};
type Manifest = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    scaleTargetRef?: { name: string };
    selector?: { matchLabels?: Record<string, string> };
    template?: {
      spec: {
        terminationGracePeriodSeconds?: number;
        containers: Container[];
        volumes?: Array<{ name: string; emptyDir?: { medium?: string } }>;
      };
    };
  };
};
const manifestsIn = (path: string) => parseAllDocuments(repoFile(path)).map((document) => document.toJS() as Manifest);
const kustomization = parse(repoFile('infra/k8s/kustomization.yaml')) as { resources: string[] };
const applied = kustomization.resources.flatMap((file) => manifestsIn(`infra/k8s/${file}`));
const configMap = applied.find((manifest) => manifest.kind === 'ConfigMap')?.data ?? {};

/** Compose's "330s" / "1m30s" in seconds. */
const composeSeconds = (duration: string | undefined) => {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration ?? '');
  return match ? Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0) : 0;
};

describe('the shipped deployments', () => {
  it('know every role the code has', () => {
    expect(roles).toEqual(
      expect.arrayContaining(['api', 'mining-worker', 'rates-worker', 'mail', 'applications-worker', 'bookings-worker']),
    );
  });

  describe.each(roles)('%s', (role) => {
    it('runs in its own compose service, stopped only after its shutdown grace', () => {
      const service = compose.services[role];
      expect(service?.command).toEqual(['start', '--role', role]);
      const graceMs = Number(service?.environment?.SHUTDOWN_GRACE_MS);
      expect(graceMs).toBeGreaterThan(0);
      expect(composeSeconds(service?.stop_grace_period) * 1000).toBeGreaterThan(graceMs);
      if (runsChromium(role)) expect(service?.shm_size).toBeDefined();
      expect(Object.keys(service?.environment ?? {}).includes('VAULT_KEY')).toBe(opensTheVault(role));
    });

    it('runs in a Kubernetes Deployment the kustomization applies, with an autoscaler and a disruption budget', () => {
      const deployment = applied.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === `quarry-${role}`);
      const pod = deployment?.spec?.template?.spec;
      const container = pod?.containers[0];
      expect(container?.args).toEqual(['start', '--role', role]);
      const env = new Map((container?.env ?? []).map(({ name, value }) => [name, value]));
      const graceMs = Number(env.get('SHUTDOWN_GRACE_MS') ?? configMap.SHUTDOWN_GRACE_MS);
      const preStopSeconds = Number(container?.lifecycle?.preStop?.exec?.command?.find((word) => /^\d+$/.test(word)) ?? 0);
      expect((pod?.terminationGracePeriodSeconds ?? 30) - preStopSeconds).toBeGreaterThan(graceMs / 1000);
      expect(
        applied.some((manifest) => manifest.kind === 'HorizontalPodAutoscaler' && manifest.spec?.scaleTargetRef?.name === `quarry-${role}`),
      ).toBe(true);
      expect(
        applied.some(
          (manifest) =>
            manifest.kind === 'PodDisruptionBudget' && manifest.spec?.selector?.matchLabels?.['app.kubernetes.io/component'] === role,
        ),
      ).toBe(true);
      const secrets = (container?.envFrom ?? []).flatMap((source) => (source.secretRef ? [source.secretRef.name] : []));
      expect(secrets.includes('quarry-vault')).toBe(opensTheVault(role));
      if (runsChromium(role)) {
        const sharedMemory = pod?.volumes?.find((volume) => volume.emptyDir?.medium === 'Memory');
        expect(container?.volumeMounts).toContainEqual({ name: sharedMemory?.name, mountPath: '/dev/shm' });
        expect(env.get('HOME')).toBe('/tmp');
      }
    });
  });

  it("keep the vault's key in a Secret of its own, apart from QUARRY_SECRET_KEY", () => {
    const secrets = new Map(
      manifestsIn('infra/k8s/quarry-secrets.example.yaml').map((manifest) => [
        manifest.metadata.name,
        Object.keys(manifest.stringData ?? {}),
      ]),
    );
    expect(secrets.get('quarry-secrets')).toContain('QUARRY_SECRET_KEY');
    expect(secrets.get('quarry-secrets')).not.toContain('VAULT_KEY');
    expect(secrets.get('quarry-vault')).toEqual(['VAULT_KEY']);
  });
});

import { parseConfig } from '../../../core/config';
import { isRagError } from '../../../core/errors';

const message = (env: Record<string, string>): string => {
  try {
    parseConfig(env);
  } catch (error) {
    if (isRagError(error)) return error.message;
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
};

describe('RAGTIME_METRICS_ADDRESS', () => {
  test('off by default', () => expect(parseConfig({}).telemetry.metricsAddress).toBeNull());

  test('host:port, or an IPv6 host in brackets', () => {
    expect(parseConfig({ RAGTIME_METRICS_ADDRESS: '127.0.0.1:9464' }).telemetry.metricsAddress).toBe('127.0.0.1:9464');
    expect(parseConfig({ RAGTIME_METRICS_ADDRESS: '[::1]:9464' }).telemetry.metricsAddress).toBe('[::1]:9464');
    expect(parseConfig({ RAGTIME_METRICS_ADDRESS: 'metrics.internal:9464' }).telemetry.metricsAddress).toBe('metrics.internal:9464');
  });

  test('a bare port, a URL or a port out of range is refused, saying what to write', () => {
    for (const bad of ['9464', 'http://127.0.0.1:9464', '127.0.0.1:70000']) {
      expect(message({ RAGTIME_METRICS_ADDRESS: bad })).toContain(`RAGTIME_METRICS_ADDRESS=${JSON.stringify(bad)} is not host:port such as 127.0.0.1:9464`);
    }
  });
});

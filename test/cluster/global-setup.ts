import { clusterScript, clusterUp } from './cluster';

/* Brings the cluster up for the cluster tests (built on first use: minutes), noting whether this run started it. */
export default async function globalSetup(): Promise<void> {
  const before = await clusterScript(['status']);
  process.env.RAGTIME_CLUSTER_STARTED_BY_TESTS = before.code === 0 ? '' : '1';
  const output = await clusterUp();
  console.log(`\n${output.trim()}`);
}

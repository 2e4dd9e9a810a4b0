import { clusterScript } from './cluster';

/* Stops the cluster if globalSetup started it; one that was already running is left as it was. */
export default async function globalTeardown(): Promise<void> {
  if (process.env.RAGTIME_CLUSTER_STARTED_BY_TESTS !== '1') return;
  const { output } = await clusterScript(['down']);
  console.log(output.trim());
}

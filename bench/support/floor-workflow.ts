import { allHandlersFinished, condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';

/*
 * The floor: the simple run's shape on Temporal — update-with-start, two activities one after the other, three
 * workflow tasks — with no ragtime code at all (no input validation, search attributes, memo, trace or progress).
 * What a simple run costs beyond this is ragtime's own workflow code; what this costs is Temporal's on this machine.
 */

export const floorDoneUpdate = defineUpdate<number>('benchFloorDone');
export type FloorActivities = { benchNoop(): Promise<number> };

const activities = proxyActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });
const localActivities = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

export async function benchFloorWorkflow(): Promise<number> {
  return floorRun(activities);
}

/**
 * The fast run's shape today (scenario floor-3, issue 17 §3 like for like): three activities one after the other,
 * then one local one (ragtime's recordAudit), four workflow tasks; still no ragtime code.
 */
export async function benchFloor3Workflow(): Promise<number> {
  return floorRun(activities, 3, localActivities);
}

/**
 * The same with local activities (scenario floor-local): one workflow task for the whole run. Not how ragtime runs
 * its graph (a local activity's progress and visibility are those of the workflow task it runs in); it measures
 * what that design choice would be worth on this machine.
 */
export async function benchFloorLocalWorkflow(): Promise<number> {
  return floorRun(localActivities);
}

async function floorRun(calls: FloorActivities, count = 2, last?: FloorActivities): Promise<number> {
  let finished = false;
  // Message handlers
  setHandler(floorDoneUpdate, async () => {
    await condition(() => finished);
    return 2;
  });
  for (let i = 0; i < count; i++) await calls.benchNoop();
  if (last) await last.benchNoop();
  finished = true;
  await condition(allHandlersFinished);
  return 2;
}

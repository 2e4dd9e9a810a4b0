import { allHandlersFinished, condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';

/*
 * The floor: the simple run's shape on Temporal — update-with-start, two activities one after the other, three
 * workflow tasks — with no ragtime code at all (no input validation, search attributes, memo, trace or progress).
 * What a simple run costs beyond this is ragtime's own workflow code; what this costs is Temporal's on this machine.
 */

export const floorDoneUpdate = defineUpdate<number>('benchFloorDone');
export type FloorActivities = { benchNoop(): Promise<number> };

const activities = proxyActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

export async function benchFloorWorkflow(): Promise<number> {
  let finished = false;
  // Message handlers
  setHandler(floorDoneUpdate, async () => {
    await condition(() => finished);
    return 2;
  });
  await activities.benchNoop();
  await activities.benchNoop();
  finished = true;
  await condition(allHandlersFinished);
  return 2;
}

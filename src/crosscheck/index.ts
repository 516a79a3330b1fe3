export { crossCheck, reportToJson } from './crossCheck.js';
export { compareOutput, ulpDistance } from './compare.js';
export { userJob } from './userJob.js';
export { toComparison, type OutputRule } from './rules.js';
export { jobs, registerJob, getJob, countModulesJob, stsSortJob, pixelJob, petJob, vecMaxJob, vecMinJob, vecSumJob } from './jobs/index.js';
export { pixelJobInputs, type PixelJobInputs } from './jobs/pixel.js';
export type { Job, Comparison, CrossCheckOptions, CrossCheckReport, OutputReport, OutputValue, Difference, BackendRun } from './types.js';

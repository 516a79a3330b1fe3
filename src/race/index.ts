// The race tools: compiled kernels' fine-grained form, schedules you can hold, exploration, racecheck, memcheck.
export { ThreadRunner, StepBudgetError, DEFAULT_MAX_STEPS } from './threadRunner.js';
export { defineJob, isRaceJob, RaceJobError } from './defineJob.js';
export type { JobSpec, JobLaunch, JobArg, JobInputs, JobOutputs, BufferSpec, UserJobContext } from './defineJob.js';
export type { ThreadLaunch, NamedBuffer } from './threadRunner.js';
export { RaceSession, outputKey, firstDifference } from './job.js';
export type { RaceJob, JobContext, Outputs, RunResult } from './job.js';
export { explore, replay, racecheck } from './explore.js';
export { memcheck } from './memcheck.js';
export type { MemcheckOptions, MemcheckResult } from './memcheck.js';
export type { MemcheckReport, MemcheckKind } from './memoryChecker.js';
export type { ExploreOptions, ExploreResult, Outcome, OutcomeGroup, RacecheckOptions, RacecheckResult } from './explore.js';
export { setKey } from './outcomes.js';
export type { OutcomeClass } from './outcomes.js';
export { parseShard, checkShard, ShardError } from './shard.js';
export type { Shard } from './shard.js';
export { outcomeFile, readOutcomeFile, mergeOutcomeFiles, jobIdentity, plainOutputs, OutcomeFileError, OUTCOME_FORMAT } from './merge.js';
export type { OutcomeFile, PlainOutputs } from './merge.js';
export {
  formatSchedule, parseSchedule, serialSchedule, encodeDecisions, decodeDecisions, ScheduleMismatchError,
  ScheduleFormatError, SCHEDULE_PREFIX, SCHEDULE_PREFIX_V1, MAX_DECISIONS,
  InOrderChooser, IntervalChooser, RandomChooser, PctChooser, ReplayChooser, ExhaustiveChooser, Mulberry32,
} from './schedule.js';
export type { Schedule, FineSchedule, SerialSchedule, Chooser, Strategy } from './schedule.js';
export type { RaceReport, ReportKind, AccessKind, ThreadRef, AccessRef, HazardType, Severity } from './reports.js';
export { formatReport } from './reports.js';
export { corpus, findJob } from './corpus.js';

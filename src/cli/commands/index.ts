// The CLI's commands. Each module exports one Command; add new ones to this list.
import type { Command } from '../command.js';
import { info } from './info.js';
import { demo } from './demo.js';
import { bench } from './bench.js';
import { explore } from './explore.js';
import { racecheck } from './racecheck.js';
import { memcheck } from './memcheck.js';
import { stsSortCommand } from './stsSort.js';
import { pixelCommand } from './pixel.js';
import { crosscheck } from './crosscheck.js';
import { pet } from './pet.js';
import { build } from './build.js';
import { withExploreOptions, withMemcheckOptions, withRacecheckOptions } from './raceOptions.js';

export const commands: Command[] = [
  info, demo, build, bench, crosscheck, withExploreOptions(explore), withRacecheckOptions(racecheck), withMemcheckOptions(memcheck), stsSortCommand, pixelCommand, pet,
];

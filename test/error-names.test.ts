// Errors are named by their class, even where a bundler renamed the classes (a minified page
// showed every error as `_`): simt pins its error classes' names.
import { describe, expect, it } from 'vitest';
import { KernelArgumentError, LaunchConfigError, SimtError, pinErrorNames } from '../src/errors.js';
import { WebGpuUnavailableError } from '../src/webgpu/gpu.js';

function minified<T extends abstract new (...a: never[]) => Error>(cls: T, run: () => void): void {
  const name = Object.getOwnPropertyDescriptor(cls, 'name')!;
  Object.defineProperty(cls, 'name', { value: '_', configurable: true });
  try { run(); } finally { Object.defineProperty(cls, 'name', name); }
}

describe('error names', () => {
  it('a pinned class keeps its name when its class name is minified', () => {
    minified(LaunchConfigError, () => expect(new LaunchConfigError('x').name).toBe('LaunchConfigError'));
    minified(KernelArgumentError, () => expect(new KernelArgumentError('k', 'p', 'bad').name).toBe('KernelArgumentError'));
    minified(WebGpuUnavailableError, () => expect(new WebGpuUnavailableError('no-adapter', 'm').name).toBe('WebGpuUnavailableError'));
  });

  it('a subclass that is not pinned is named by its own class, not its pinned parent', () => {
    class MyError extends LaunchConfigError {}
    expect(new MyError('x').name).toBe('MyError');
    class Pinned extends SimtError {}
    pinErrorNames({ PinnedError: Pinned });
    expect(new Pinned('x').name).toBe('PinnedError');
  });
});

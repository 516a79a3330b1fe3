// Every failure simt reports is one of these classes, so callers can `instanceof` them and
// the message alone says what was wrong. After any of them the device stays usable.

const ERROR_NAME = Symbol('simt.errorName');

/** Base class of every simt error. Its `name` is the class's name (pinned by {@link pinErrorNames}). */
export class SimtError extends Error {
  constructor(message: string) {
    super(message);
    // The pinned name when there is one: a bundler that minifies class names (`class _ extends …`)
    // would otherwise name every error `_`.
    const pinned = Object.prototype.hasOwnProperty.call(new.target, ERROR_NAME) ? (new.target as { [ERROR_NAME]?: string })[ERROR_NAME] : undefined;
    this.name = pinned ?? new.target.name;
  }
}

/**
 * Pins error classes' names: `pinErrorNames({ MyError })`. The keys are strings, which no
 * minifier renames, so an error keeps its name in a bundled page.
 */
export function pinErrorNames(classes: Record<string, abstract new (...args: never[]) => Error>): void {
  for (const [name, cls] of Object.entries(classes)) Object.defineProperty(cls, ERROR_NAME, { value: name });
}

/** An allocation asked for more bytes than the device heap has free (largest free block). */
export class OutOfDeviceMemoryError extends SimtError {
  constructor(readonly requestedBytes: number, readonly freeBytes: number, readonly largestFreeBytes: number) {
    super(`out of device memory: requested ${requestedBytes} bytes, ${freeBytes} bytes free ` +
      `(largest free block ${largestFreeBytes} bytes)`);
  }
}

/** A device memory size that wasm32 cannot address, or that is not usable. */
export class MemorySizeError extends SimtError {}

/** A device array was used after `free()` (or its device was destroyed). */
export class UseAfterFreeError extends SimtError {}

/** Host data whose length or element type does not match the device array. */
export class BufferMismatchError extends SimtError {}

/** An option of `createDevice` of the wrong type or out of its range (checked before anything starts). */
export class DeviceOptionError extends SimtError {
  constructor(readonly option: string, problem: string) {
    super(`createDevice: ${option} ${problem}`);
  }
}

/** A launch configuration outside CUDA's limits (grid, block, shared bytes). */
export class LaunchConfigError extends SimtError {}

/** Dynamic shared memory above the device's limit. */
export class SharedMemoryLimitError extends LaunchConfigError {
  constructor(readonly requestedBytes: number, readonly limitBytes: number) {
    super(`shared memory over the limit: the launch asks for ${requestedBytes} bytes, the device allows ${limitBytes}`);
  }
}

/** An argument that does not match the kernel's declared parameter. */
export class KernelArgumentError extends SimtError {
  constructor(readonly kernel: string, readonly parameter: string, problem: string) {
    super(`kernel ${kernel}: parameter '${parameter}': ${problem}`);
  }
}

/** A kernel trapped (unreachable, out-of-bounds access, division by zero, ...). */
export class KernelError extends SimtError {
  constructor(
    readonly kernel: string,
    readonly blockIdx: { x: number; y: number; z: number },
    readonly trap: string,
  ) {
    super(`kernel ${kernel} trapped in block (${blockIdx.x}, ${blockIdx.y}, ${blockIdx.z}): ${trap}`);
  }
}

/**
 * A launch that did not finish within its time limit. It was stopped between blocks, or, when
 * a block did not return within a grace period, by restarting the workers (`restarted`).
 */
export class KernelTimeoutError extends SimtError {
  /** `what`: what became of the launch, where it is neither of the wasm pool's two. */
  constructor(readonly kernel: string, readonly timeoutMs: number, readonly restarted = true, what?: string) {
    super(`kernel ${kernel} did not finish within ${timeoutMs} ms; ` +
      (what ?? `the launch was aborted${restarted ? ' and the workers restarted' : ' between blocks'}`));
  }
}

/** A launch cancelled through its AbortSignal. */
export class LaunchAbortedError extends SimtError {
  constructor(readonly kernel: string, reason?: unknown) {
    super(`kernel ${kernel}: launch aborted${reason === undefined ? '' : `: ${String(reason)}`}`);
  }
}

/** The device was destroyed. */
export class DeviceDestroyedError extends SimtError {}

/**
 * A pool worker's thread ended during a launch (a crash, an out-of-memory kill, a terminate
 * from outside): the launch's blocks did not all run, so its results are incomplete. The
 * workers were restarted and the device is usable.
 */
export class WorkerLostError extends SimtError {
  constructor(readonly kernel: string, readonly worker: number, readonly workers: number, detail: string) {
    super(`kernel ${kernel}: worker ${worker} of ${workers} exited during the launch (${detail}); ` +
      'its blocks did not all run; the workers were restarted');
  }
}

/**
 * A kernel wrote into the device's control page (the launch protocol's words, bytes 0–64 KiB):
 * a wild pointer, or an index that jumped the guard past the end of memory and wrapped to 0.
 * Its results are not reliable (blocks may not have run); the workers were restarted and the
 * device is usable. See docs/architecture.md, "Bounds".
 */
export class ControlPageError extends SimtError {
  constructor(readonly kernel: string, readonly word: string) {
    super(`kernel ${kernel} wrote into the device's control page (${word} changed during the launch): ` +
      'a wild or wrapped address; its results are not reliable; the workers were restarted');
  }
}

/**
 * The device lost a worker and could not start a new one: every later launch rejects with
 * this error. Device memory stays readable (read() still works); destroy() the device.
 */
export class DeviceLostError extends SimtError {}

/** A backend that cannot run here (e.g. no WebGPU adapter), or an unknown backend name. */
export class BackendUnavailableError extends SimtError {}

/**
 * `view()` on a device whose memory the host cannot address (WebGPU: device memory is the GPU's
 * own; use read()/upload(), or the copying fallbacks of `readWith`/`uploadWith`).
 */
export class NotHostMappedError extends SimtError {}

pinErrorNames({
  SimtError, OutOfDeviceMemoryError, MemorySizeError, UseAfterFreeError, BufferMismatchError, DeviceOptionError, LaunchConfigError,
  SharedMemoryLimitError, KernelArgumentError, KernelError, KernelTimeoutError, LaunchAbortedError, DeviceDestroyedError, WorkerLostError,
  DeviceLostError, BackendUnavailableError, NotHostMappedError,
});

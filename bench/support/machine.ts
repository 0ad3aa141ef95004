import os from 'node:os';
import { formatBytes, type MachineInfo } from './benchmark';

export function describeMachine(now: Date = new Date()): MachineInfo {
  const cpus = os.cpus();
  return {
    // os.cpus() is empty in some sandboxes; availableParallelism() still knows the core count.
    cpuModel: cpus[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus.length > 0 ? cpus.length : os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    node: process.version,
    os: `${os.type()} ${os.machine()}`,
    kernel: os.release(),
    date: now.toISOString(),
  };
}

/** One line, for the provenance note under each section. */
export function summarizeMachine(machine: MachineInfo): string {
  return `${machine.cpuModel}, ${machine.cores} cores, ${formatBytes(machine.totalMemoryBytes)}, Node ${machine.node}, ${machine.os} ${machine.kernel}`;
}

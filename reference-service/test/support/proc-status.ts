import { readFile } from 'node:fs/promises';

/** A figure of /proc/PID/status, in bytes (VmRSS: resident now; VmHWM: the peak since the last reset). */
export async function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
}

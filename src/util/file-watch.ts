import { unwatchFile, watchFile } from 'node:fs';

/**
 * Watches files by polling (stat follows the symlinks Kubernetes swaps when a Secret or ConfigMap volume
 * changes, which fs.watch misses); `onChange` runs after any of them changed. The watch never keeps the process
 * alive. Returns the function that stops it.
 */
export function watchFiles(files: readonly string[], intervalMs: number, onChange: () => void): () => void {
  const listener = (): void => onChange();
  for (const f of files) watchFile(f, { interval: intervalMs, persistent: false }, listener);
  return () => {
    for (const f of files) unwatchFile(f, listener);
  };
}

// The chaos run's only source of randomness: a small seeded generator (mulberry32), so that a seed
// gives the same lifecycles and the same fault schedule on every machine and every run.

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** One of `weights`' keys, drawn in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
}

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from nothing');
      return items[Math.floor(next() * items.length)]!;
    },
    weighted: (weights) => {
      const entries = Object.entries(weights) as [keyof typeof weights, number][];
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let x = next() * total;
      for (const [key, w] of entries) {
        x -= w;
        if (x < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
  };
  return random;
}

/** A seed of its own for each part of the run, so that more jobs do not change the fault schedule. */
export const subSeed = (seed: number, part: string) =>
  [...part].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, (seed ^ 2166136261) >>> 0);

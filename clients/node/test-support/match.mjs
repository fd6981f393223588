// match.mjs — owns the scenario file's `expect` pattern language (proto/scenarios/README.md):
// objects match when every key they give matches; arrays element-wise with equal length;
// "<any>" matches any present value; "<contains:TEXT>" matches a string containing TEXT.

/** Returns null when `actual` matches `pattern`, else a description of the first mismatch. */
export function mismatch(pattern, actual, path = '$') {
  if (pattern === '<any>') return actual === undefined ? `${path}: missing` : null;
  if (typeof pattern === 'string' && pattern.startsWith('<contains:') && pattern.endsWith('>')) {
    const needle = pattern.slice('<contains:'.length, -1);
    return typeof actual === 'string' && actual.includes(needle)
      ? null
      : `${path}: expected a string containing ${JSON.stringify(needle)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== pattern.length) {
      return `${path}: expected ${pattern.length} elements, got ${actual.length}`;
    }
    for (let i = 0; i < pattern.length; i += 1) {
      const m = mismatch(pattern[i], actual[i], `${path}[${i}]`);
      if (m !== null) return m;
    }
    return null;
  }
  if (pattern !== null && typeof pattern === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    }
    for (const [key, value] of Object.entries(pattern)) {
      if (!Object.hasOwn(actual, key)) return `${path}.${key}: missing`;
      const m = mismatch(value, actual[key], `${path}.${key}`);
      if (m !== null) return m;
    }
    return null;
  }
  return Object.is(pattern, actual) ? null : `${path}: expected ${JSON.stringify(pattern)}, got ${JSON.stringify(actual)}`;
}

/** The version of this package, written into every release (kept equal to package.json by a test). */
export const REPORT_VERSION = '0.1.0';

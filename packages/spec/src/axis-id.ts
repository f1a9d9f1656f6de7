import { z } from 'zod';

/** The five CHI axes of the framework. */
export const AxisIdSchema = z.enum(['R', 'M', 'C', 'A', 'I']);
/** One of the five CHI axes. */
export type AxisId = z.infer<typeof AxisIdSchema>;

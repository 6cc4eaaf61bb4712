/**
 * How vkit names the containers an attempt starts (`vkit-<attempt id>-<step>`): the rules that start
 * them and the job layer that removes them on cancel or recovery agree on it here, without loading
 * the container client.
 */
export const containerPrefix = (attempt: string) => `vkit-${attempt}`;

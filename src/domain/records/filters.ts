// The records query takes the same `filters` as GET /search/metadata: one parser for both.
export { FILTER_OPS, MAX_FILTERS, MAX_IN_VALUES, parseFilters } from '../search/filters.ts';

// The mutator the pages' states share, fn(state, value): one field set, nothing decided.
export const setField = (field) => (state, value) => {
  state[field] = value;
};

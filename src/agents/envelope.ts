/** Matcher of our SessionStart entries (contract §9). */
export const SESSION_MATCHER = "startup|resume|clear|compact";

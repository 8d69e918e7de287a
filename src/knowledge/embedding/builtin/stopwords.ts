// English function words: they carry almost no topic, so they get a token weight near zero; other words
// are down-weighted by how common WordNet's sense-tagged corpus says they are (token-features.ts).

const FUNCTION_WORDS = `
a about above after again against all almost also although always am among an and another any anybody
anyone anything anyway anywhere are around as at be because been before being below between both but by
can cannot could did do does doing done down during each either else enough etc even ever every
everybody everyone everything few for from further had has have having he her here hers herself him
himself his how however i if in into is it its itself just least less let may maybe me might mine more
most much must my myself neither no nobody none nor not nothing now of off often on once one only onto
or other others otherwise our ours ourselves out over own per perhaps please quite rather really same
shall she should since so some somebody someone something sometimes somewhere still such than thank
thanks that the their theirs them themselves then there therefore these they this those though through
thus to too toward towards under unless until up upon us very via was we were what whatever when
whenever where wherever whether which while who whoever whom whose why will with within without would
yes yet you your yours yourself yourselves hi hello hey okay ok
aren couldn didn doesn don hadn hasn haven isn ll mustn needn re shan shouldn ve wasn weren won wouldn
`;

/** Lower-case English function words (apostrophe halves such as "don" and "ll" included). */
export const STOPWORDS: ReadonlySet<string> = new Set(FUNCTION_WORDS.split(/\s+/).filter((word) => word.length > 0));

/** Function words and single Latin letters, which carry no topic on their own. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word) || (word.length === 1 && word >= "a" && word <= "z");
}

"""Dead Reckoning: Deep Legends (rulebook 003): the six-game campaign (`campaign`) and the saga content
(`saga`: the tuck box, the Encounter Book, buried and eliminated cards, saga items, the Saga die)."""

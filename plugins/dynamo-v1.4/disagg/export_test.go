package disagg

// TokenizedPromptIDs lets the tests read the tokens later plugins see,
// wherever the GAIE under test keeps them.
var TokenizedPromptIDs = tokenizedPromptIDs

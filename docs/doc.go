// Package docs holds the project's own documents: the edit contract
// (edit-contract.md), the wire contract (wire-contract.md), the
// architecture and the other notes beside them. It has no code; its tests
// keep the documents and the code that cites them in step: every
// "edit-contract §N" or "wire-contract §N" citation in a .go or .md file
// of the repository must name a section heading that exists, no citation
// may point at the seed's rpc.md any more, and the relative links of the
// documents and the README must lead to files that exist.
package docs

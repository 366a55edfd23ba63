// Package docs holds the project's own documents: the edit contract
// (edit-contract.md), the wire contract (wire-contract.md), the
// architecture and the other notes beside them. It has no code; its tests
// keep the documents and the code in step:
//
//   - every "edit-contract §N" or "wire-contract §N" citation in a .go or
//     .md file of the repository names a section heading that exists, and
//     nothing cites the seed's rpc.md any more;
//   - every relative link of the top-level documents and of docs/*.md leads
//     to a file that exists;
//   - every default the edit contract's limit tables state is the one
//     config.DefaultLimits holds, and every config key the contracts name
//     exists;
//   - the wire contract's error tables are the codes of rpc/wire and the
//     tools' error table, in order, with their retriable flags and the
//     details members the tools set.
package docs

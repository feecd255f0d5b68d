package credentials

// AssignStatusWithCapacity is AssignStatus over lists of a few entries, which tests fill.
var AssignStatusWithCapacity = assignStatus

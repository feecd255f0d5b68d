package certificates

// SetCodeDrawer replaces how s draws verification codes, so that a test can draw a taken one.
func SetCodeDrawer(s *Service, draw func() (string, error)) { s.drawCode = draw }

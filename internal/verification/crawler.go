package verification

import "strings"

// crawlerMarks are pieces of the User-Agent of crawlers and link unfurlers, lower case. The
// named ones unfurl shared links or index pages; the generic ones catch the rest: a bot's
// User-Agent names a contact URL ("+http"), or calls itself a bot, crawler or spider. A plain
// "bot" is not enough (phone brands such as CUBOT carry it).
var crawlerMarks = []string{
	// Link unfurlers of social networks and messengers.
	"linkedinbot", "facebookexternalhit", "facebookcatalog", "facebot", "meta-externalagent", "meta-externalfetcher",
	"twitterbot", "slackbot", "slack-imgproxy", "discordbot", "telegrambot", "whatsapp", "skypeuripreview",
	"microsoftpreview", "pinterest", "redditbot", "tumblr", "vkshare", "viber", "snapchat", "mastodon", "cardyb",
	"bluesky", "embedly", "iframely", "outbrain", "quora link preview", "bitlybot", "flipboard", "nuzzel",
	// Search engines and other crawlers.
	"googlebot", "google-inspectiontool", "googleother", "google-extended", "adsbot-google", "mediapartners-google",
	"feedfetcher-google", "apis-google", "storebot-google", "google-read-aloud", "bingbot", "bingpreview", "msnbot",
	"adidxbot", "duckduckbot", "duckassistbot", "yandex", "baiduspider", "sogou", "exabot", "applebot", "petalbot",
	"seznambot", "qwantify", "semrushbot", "ahrefsbot", "mj12bot", "dotbot", "bytespider", "gptbot", "chatgpt-user",
	"oai-searchbot", "claudebot", "claude-web", "anthropic-ai", "ccbot", "perplexitybot", "amazonbot", "ia_archiver",
	"archive.org_bot", "w3c_validator",
	// Generic marks.
	"+http", "crawler", "spider", "bot/", "bot-", "bot;", "bot)",
}

// IsCrawler reports whether userAgent is a known crawler or link unfurler. Their requests
// are answered but not counted, and never send certificate.viewed or certificate.downloaded.
func IsCrawler(userAgent string) bool {
	if userAgent == "" {
		return false
	}
	ua := strings.ToLower(userAgent)
	for _, m := range crawlerMarks {
		if strings.Contains(ua, m) {
			return true
		}
	}
	return false
}

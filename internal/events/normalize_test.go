package events

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
)

func ptr(s string) *string { return &s }

// normalize is the one place the event's texts are checked: what it keeps, what it clears
// and which fields it names when it refuses.
func TestNormalizeTrimsClearsAndRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      domain.EventFields
		want    domain.EventFields // when the fields are valid
		refused []apperr.Detail    // when they are not
	}{
		{
			name: "texts are trimmed",
			in:   domain.EventFields{Name: "  Congress\t", Location: ptr(" Vienna "), Description: ptr(" Two days. ")},
			want: domain.EventFields{Name: "Congress", Location: ptr("Vienna"), Description: ptr(" Two days. ")},
		},
		{
			name: "blank optional texts are cleared",
			in:   domain.EventFields{Name: "Congress", Location: ptr(" \t "), Description: ptr("\n \n")},
			want: domain.EventFields{Name: "Congress"},
		},
		{
			name: "a description may span lines",
			in:   domain.EventFields{Name: "Congress", Description: ptr("Day one.\nDay two.")},
			want: domain.EventFields{Name: "Congress", Description: ptr("Day one.\nDay two.")},
		},
		{
			name:    "a blank name is refused",
			in:      domain.EventFields{Name: " \t\n "},
			refused: []apperr.Detail{{Field: "name", Message: "must not be blank"}},
		},
		{
			name:    "a line break in the name is refused",
			in:      domain.EventFields{Name: "Congress\nBcc: everyone"},
			refused: []apperr.Detail{{Field: "name", Message: "must not contain control characters"}},
		},
		{
			name:    "a control character in the location is refused",
			in:      domain.EventFields{Name: "Congress", Location: ptr("Vienna\x07")},
			refused: []apperr.Detail{{Field: "location", Message: "must not contain control characters"}},
		},
		{
			name: "every field at fault is named, in the form's order",
			in:   domain.EventFields{Name: "", Location: ptr("Room\r1")},
			refused: []apperr.Detail{
				{Field: "name", Message: "must not be blank"},
				{Field: "location", Message: "must not contain control characters"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.in
			err := normalize(&f)
			if tc.refused == nil {
				require.NoError(t, err, "valid fields were refused")
				require.Empty(t, cmp.Diff(tc.want, f), "normalized fields (-want +got)")
				return
			}
			e, ok := apperr.As(err)
			require.True(t, ok, "want an application error, got %v", err)
			require.Equal(t, apperr.ValidationError, e.Code, "error code")
			require.Empty(t, cmp.Diff(tc.refused, e.Details), "details of the refusal (-want +got)")
		})
	}
}

package fake

import (
	"math"
	"time"
)

// The test-control API under /_fake/ (see the package documentation). Each call is also a
// method of *Server.

func (s *Server) health(c *call) (any, error) {
	return map[string]string{"status": "ok"}, nil
}

type clockBody struct {
	Now time.Time `json:"now"`
}

func (s *Server) reset(c *call) (any, error) {
	s.Reset()
	return clockBody{s.Now()}, nil
}

func (s *Server) getClock(c *call) (any, error) {
	return clockBody{s.Now()}, nil
}

func (s *Server) advanceClock(c *call) (any, error) {
	var req struct {
		Seconds *float64 `json:"seconds"`
	}
	if err := c.bind(&req); err != nil {
		return nil, err
	}
	switch {
	case req.Seconds == nil:
		return nil, invalidField("seconds", "field required")
	case *req.Seconds < 0 || math.IsNaN(*req.Seconds) || *req.Seconds > 100*365*24*3600:
		return nil, invalidField("seconds", "must be a number of seconds from 0 to 100 years, got %v", *req.Seconds)
	}
	return clockBody{s.AdvanceClock(time.Duration(*req.Seconds * float64(time.Second)))}, nil
}

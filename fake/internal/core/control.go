package core

import (
	"time"

	"github.com/platformkit/platformkit/schemas"
)

// The test-control API under /_fake/ (see the package documentation). Each call is also a
// method of *Server.

func (s *Server) health(c *Call) (any, error) {
	return map[string]string{"status": "ok"}, nil
}

type clockBody struct {
	Now time.Time `json:"now"`
}

func (s *Server) reset(c *Call) (any, error) {
	s.Reset()
	return clockBody{s.Now()}, nil
}

func (s *Server) getClock(c *Call) (any, error) {
	return clockBody{s.Now()}, nil
}

func (s *Server) advanceClock(c *Call) (any, error) {
	var req struct {
		Seconds float64 `json:"seconds"` // required, 0 to 100 years: control/clock_advance_request
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return clockBody{s.AdvanceClock(time.Duration(req.Seconds * float64(time.Second)))}, nil
}

// openAPI answers the OpenAPI 3.1 document of the API, as embedded when the fake was built (so
// it describes this build's routes).
func (s *Server) openAPI(c *Call) (any, error) {
	return RawBody{ContentType: "application/json", Data: schemas.OpenAPI()}, nil
}

// controlOpenAPI answers the OpenAPI 3.1 document of the control API.
func (s *Server) controlOpenAPI(c *Call) (any, error) {
	return RawBody{ContentType: "application/json", Data: schemas.ControlOpenAPI()}, nil
}

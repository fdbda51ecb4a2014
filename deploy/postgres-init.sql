-- Temporal keeps its own databases beside the service's (auto-setup creates their schema).
CREATE DATABASE temporal;
CREATE DATABASE temporal_visibility;

"""The Bolivian Cacho pizarra on the kiosk: rolls read by the camera, scored by the engine, drawn as players know it."""

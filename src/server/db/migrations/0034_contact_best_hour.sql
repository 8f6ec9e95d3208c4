ALTER TABLE "contact_event_counts" ADD COLUMN "best_hour" smallint;--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_best_hour() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.best_hour := (SELECT i - 1 FROM generate_series(1, 24) i WHERE NEW.open_hours[i] > 0 ORDER BY NEW.open_hours[i] DESC, i LIMIT 1);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER contact_best_hour_insert BEFORE INSERT ON contact_event_counts FOR EACH ROW WHEN (NEW.open_hours IS NOT NULL) EXECUTE FUNCTION contact_best_hour();--> statement-breakpoint
CREATE TRIGGER contact_best_hour_update BEFORE UPDATE OF open_hours ON contact_event_counts FOR EACH ROW WHEN (NEW.open_hours IS DISTINCT FROM OLD.open_hours) EXECUTE FUNCTION contact_best_hour();
--> statement-breakpoint
UPDATE contact_event_counts SET best_hour = (SELECT i - 1 FROM generate_series(1, 24) i WHERE open_hours[i] > 0 ORDER BY open_hours[i] DESC, i LIMIT 1) WHERE open_hours IS NOT NULL;

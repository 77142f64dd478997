import { isolationSuite } from "./worker-isolation";

isolationSuite("isolation-3");

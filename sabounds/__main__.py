from sabounds.cli import main

raise SystemExit(main())

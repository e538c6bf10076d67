-- a comment
SELECT /* inline */ 1 + 2; ;; SELECT 'x' -- trailing